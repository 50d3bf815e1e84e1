import type { RouteOptions } from "fastify";

/**
 * The operationId of every operation, keyed by "METHOD /path" as the OpenAPI description writes
 * the path. Operations the reference product also has carry its operationId (clients generated
 * from either description then have the same method names, misspellings included:
 * `rejectAcess`); Steward's own are named in the same style. One table, applied to every route
 * as it is registered, so routes files need not know about it.
 */
export const OPERATION_IDS: Record<string, string> = {
  "GET /api/members": "getMembers",
  "PUT /api/members/{email}": "putMember",
  "DELETE /api/members/{email}": "deleteMember",
  "GET /api/api-keys": "getApiKeys",
  "POST /api/api-keys": "createApiKey",
  "GET /api/api-keys/{id}": "getApiKey",
  "DELETE /api/api-keys/{id}": "deleteApiKey",
  "GET /api/teams": "getTeams",
  "GET /api/teams/{id}": "getTeam",
  "PUT /api/teams/{id}": "addTeam",
  "DELETE /api/teams/{id}": "deleteTeam",
  "GET /api/dataproducts": "getDataProducts",
  "GET /api/dataproducts/{id}": "getDataProduct",
  "PUT /api/dataproducts/{id}": "addDataProduct",
  "DELETE /api/dataproducts/{id}": "deleteDataProduct",
  "GET /api/datacontracts": "getDataContracts",
  "GET /api/datacontracts/{id}": "getDataContract",
  "PUT /api/datacontracts/{id}": "addDataContract",
  "DELETE /api/datacontracts/{id}": "deleteDataContract",
  "GET /api/datacontracts/{id}/datacontract.yaml": "getDataContractYaml",
  "GET /api/datacontracts/{id}/models": "getDataContractModels",
  "GET /api/datacontracts/{id}/view": "getDataContractView",
  "GET /api/datacontracts/{id}/versions": "getDataContractVersions",
  "GET /api/datacontracts/{id}/versions/{n}": "getDataContractVersion",
  "GET /api/datacontracts/{id}/changes": "getDataContractChanges",
  "POST /api/datacontracts/{id}/changes": "previewDataContractChanges",
  "POST /api/schemas/validate": "validateSchema",
  "GET /api/access": "getAccessList",
  "POST /api/access": "createAccess",
  "GET /api/access/{id}": "getAccess",
  "PUT /api/access/{id}": "addAccess",
  "DELETE /api/access/{id}": "deleteAccess",
  "GET /api/access/{id}/history": "getAccessHistory",
  "POST /api/access/{id}/approve": "approveAccess",
  "POST /api/access/{id}/reject": "rejectAcess",
  "POST /api/access/{id}/cancel": "cancelAccess",
  "POST /api/access/{id}/provisioning/provisioning-started": "reportProvisioningStarted",
  "POST /api/access/{id}/provisioning/provisioning-succeeded": "reportProvisioningSucceeded",
  "POST /api/access/{id}/provisioning/provisioning-failed": "reportProvisioningFailed",
  "POST /api/access/{id}/provisioning/deprovisioning-started": "reportDeprovisioningStarted",
  "POST /api/access/{id}/provisioning/deprovisioning-succeeded": "reportDeprovisioningSucceeded",
  "POST /api/access/{id}/provisioning/deprovisioning-failed": "reportDeprovisioningFailed",
  "GET /api/access/{id}/provisioning": "getAccessProvisioning",
  "PUT /api/access/{id}/provisioning": "putAccessProvisioning",
  "GET /api/connectors": "getConnectors",
  "GET /api/connectors/{id}": "getConnector",
  "PUT /api/connectors/{id}": "putConnector",
  "DELETE /api/connectors/{id}": "deleteConnector",
  "GET /api/assets": "getAssets",
  "GET /api/assets/{id}": "getAsset",
  "PUT /api/assets/{id}": "addAsset",
  "DELETE /api/assets/{id}": "deleteAsset",
  "GET /api/assets/{id}/assigned-tags": "getAssetTags",
  "PUT /api/assets/{id}/assigned-tags/{tagId}": "putAssetTag",
  "DELETE /api/assets/{id}/assigned-tags/{tagId}": "deleteAssetTag",
  "GET /api/sourcesystems": "getSourceSystems",
  "GET /api/sourcesystems/{id}": "getSourceSystem",
  "PUT /api/sourcesystems/{id}": "addSourceSystem",
  "DELETE /api/sourcesystems/{id}": "deleteSourceSystem",
  "GET /api/definitions": "getDefinitions",
  "GET /api/definitions/{id}": "getDefinition",
  "PUT /api/definitions/{id}": "addDefinition",
  "DELETE /api/definitions/{id}": "deleteDefinition",
  "GET /api/tags": "getTags",
  "GET /api/tags/{id}": "getTag",
  "PUT /api/tags/{id}": "addTag",
  "DELETE /api/tags/{id}": "deleteTag",
  "GET /api/policies": "getPolicies",
  "PUT /api/policies/{id}": "addPolicy",
  "GET /api/policies/{id}": "getPolicy",
  "DELETE /api/policies/{id}": "deletePolicy",
  "POST /api/policies/{id}/evaluate": "evaluatePolicy",
  "GET /api/access/{id}/policies": "getAccessPolicyVerdicts",
  "GET /api/classification-schemes": "getClassificationSchemes",
  "PUT /api/classification-schemes/{id}": "putClassificationScheme",
  "GET /api/classification-schemes/{id}": "getClassificationScheme",
  "DELETE /api/classification-schemes/{id}": "deleteClassificationScheme",
  "GET /api/certifications": "getCertifications",
  "PUT /api/certifications/{id}": "addCertification",
  "GET /api/certifications/{id}": "getCertification",
  "DELETE /api/certifications/{id}": "deleteCertification",
  "POST /api/test-results": "postTestResults",
  "GET /api/test-results": "getAllTestResults",
  "GET /api/test-results/{id}": "getTestResults",
  "DELETE /api/test-results/{id}": "deleteTestResults",
  "GET /api/datacontracts/{id}/test-results": "getDataContractTestResults",
  "GET /api/events/recent": "getRecentEvents",
  "GET /api/events": "pollEvents",
  "GET /api/search": "getSearch",
  "POST /api/v1/lineage": "postLineageEvent",
  "GET /api/v1/lineage": "getLineageEvents",
  "DELETE /api/v1/lineage": "deleteLineageEvents",
  "GET /api/v1/lineage/graph": "getLineageGraph",
  "GET /api/v1/lineage/violations": "getLineageViolations",
  "GET /api/teams/{teamId}/notification-channels": "getNotificationChannels",
  "GET /api/teams/{teamId}/notification-channels/{channelId}": "getNotificationChannel",
  "PUT /api/teams/{teamId}/notification-channels/{channelId}": "putNotificationChannel",
  "DELETE /api/teams/{teamId}/notification-channels/{channelId}": "deleteNotificationChannel",
  "GET /api/teams/{teamId}/notification-channels/{channelId}/deliveries": "getNotificationDeliveries",
  "POST /api/teams/{teamId}/notification-channels/{channelId}/deliveries/{deliveryId}/redeliver": "redeliverNotification",
  "GET /api/notifications": "getNotifications",
  "GET /api/notifications/unread-count": "getUnreadNotificationCount",
  "POST /api/notifications/read": "markNotificationsRead",
  "GET /api/notifications/settings": "getNotificationSettings",
  "PUT /api/notifications/settings": "putNotificationSettings",
  "POST /auth/sign-in": "signIn",
  "POST /auth/sign-out": "signOut",
  "GET /auth/session": "getSession",
  "POST /auth/switch-organization": "switchOrganization",
  "GET /auth/invitation": "getInvitation",
  "POST /auth/invitation": "acceptInvitation",
};

/** "GET /api/teams/{id}" for a Fastify route: `:id` as `{id}`, a trailing `*` as the id it stands for. */
export function operationKey(method: string, url: string): string {
  const rest = url.endsWith("/*") ? `${url.slice(0, -1)}{${url.includes(":id/") ? "tagId" : "id"}}` : url;
  return `${method} ${rest.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`;
}

/** An onRoute hook: sets the operationId from the table on every documented route. */
export function applyOperationId(route: RouteOptions): void {
  const schema = route.schema as { hide?: boolean; operationId?: string } | undefined;
  if (!schema || schema.hide) return;
  for (const method of [route.method].flat()) {
    if (method === "HEAD") continue;
    const id = OPERATION_IDS[operationKey(method, route.url)];
    if (id) route.schema = { ...route.schema, operationId: id };
  }
}
