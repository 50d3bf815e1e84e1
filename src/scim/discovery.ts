/**
 * What the SCIM service says about itself (RFC 7643 §5–7): its features, its two resource types
 * and the attributes of each. Written for this server: only what it implements.
 */
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** Most resources one list answers, and the default when `count` is not given. */
export const MAX_COUNT = 200;

export function serviceProviderConfig(base: string) {
  return {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
    documentationUri: `${base}/docs/identity`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_COUNT },
    changePassword: { supported: false },
    sort: { supported: true },
    etag: { supported: true },
    authenticationSchemes: [
      { type: "oauthbearertoken", name: "Organization API key", description: "An organization-scoped API key, sent as Authorization: Bearer <key>.", primary: true },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${base}/api/scim/v2/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string) {
  return [
    { schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"], id: "User", name: "User", endpoint: "/Users", schema: USER_SCHEMA, meta: { resourceType: "ResourceType", location: `${base}/api/scim/v2/ResourceTypes/User` } },
    { schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"], id: "Group", name: "Group", endpoint: "/Groups", schema: GROUP_SCHEMA, meta: { resourceType: "ResourceType", location: `${base}/api/scim/v2/ResourceTypes/Group` } },
  ];
}

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...extra,
});

export function schemas(base: string) {
  return [
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: USER_SCHEMA,
      name: "User",
      description: "A person of the organization.",
      attributes: [
        attribute("userName", "string", { required: true, uniqueness: "server" }),
        attribute("externalId", "string", { caseExact: true }),
        attribute("displayName", "string"),
        attribute("active", "boolean"),
        attribute("name", "complex", { subAttributes: [attribute("givenName", "string"), attribute("familyName", "string"), attribute("formatted", "string")] }),
        attribute("emails", "complex", { multiValued: true, subAttributes: [attribute("value", "string"), attribute("type", "string"), attribute("primary", "boolean")] }),
        attribute("groups", "complex", { multiValued: true, mutability: "readOnly", subAttributes: [attribute("value", "string", { mutability: "readOnly" }), attribute("display", "string", { mutability: "readOnly" })] }),
      ],
      meta: { resourceType: "Schema", location: `${base}/api/scim/v2/Schemas/${USER_SCHEMA}` },
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: GROUP_SCHEMA,
      name: "Group",
      description: "A group of the identity provider; the organization's mapping decides what it grants.",
      attributes: [
        attribute("displayName", "string", { required: true }),
        attribute("externalId", "string", { caseExact: true }),
        attribute("members", "complex", { multiValued: true, subAttributes: [attribute("value", "string", { mutability: "immutable" }), attribute("display", "string")] }),
      ],
      meta: { resourceType: "Schema", location: `${base}/api/scim/v2/Schemas/${GROUP_SCHEMA}` },
    },
  ];
}
