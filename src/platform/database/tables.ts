import type { Generated } from "kysely";

/** Row types of every table, as Kysely sees them. Timestamps are ISO 8601 UTC text in both databases. */

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  display_name: string;
  scope: "organization" | "organization_read" | "team" | "team_read" | "user" | "user_read" | "connector";
  team_id: string | null;
  /** The person a `user` or `user_read` key acts as (an account id); null for every other scope. */
  user_id: string | null;
  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  secret_hash: string;
  /** `expiresAt` exactly as the client sent it. */
  expires_at_input: string | null;
  /** `expiresAt` normalised for comparison. */
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Who revoked it: `api-key:<id>` or `user:<id>`. */
  revoked_by: string | null;
}

/**
 * Catalog documents (teams, data products, data contracts, connectors) share one table: each is a
 * JSON document stored as sent, plus the few columns Steward filters and joins on.
 */
export interface ResourcesTable {
  row_id: Generated<number>;
  organization_id: string;
  kind: string;
  id: string;
  title: string | null;
  owner_team_id: string | null;
  status: string | null;
  /** Business domain the document names (data products, data contracts); migration 0080. */
  domain: string | null;
  /** Data products' archetype; migration 0080. */
  archetype: string | null;
  /** Lower-cased text the `q` filter searches. */
  search_text: string;
  doc: string;
  /** A data contract's YAML text as it was sent, when it was sent as YAML; migration 0150. */
  yaml_text?: string | null;
  created_at: string;
  updated_at: string;
}

export interface EventsTable {
  /** Position in the log: commit order within an organization (see docs/events.md). */
  seq: Generated<number>;
  id: string;
  organization_id: string;
  kind: string;
  subject: string;
  time: string;
  data: string;
  /** Who caused it: `api-key:<id>`, `user:<id>` or `system` (CloudEvents extension `principal`). */
  principal: string;
  /** A comment given with the change (approve, reject, cancel), for the resource's history. */
  comment: string | null;
}

/** A full batch of the feed, stored as rendered (src/events/engine/batch-sealer.ts). */
export interface EventBatchesTable {
  organization_id: string;
  /** The position the batch follows: it holds the next events of the organization after it. */
  after_seq: number;
  last_seq: number;
  last_id: string;
  count: number;
  /** Which configuration and rendering the body was made with (`renderingKey`). */
  parts: string;
  /** The CloudEvents JSON array: bytes on SQLite, text on PostgreSQL. */
  body: Buffer | string;
}

export interface AccessesTable {
  row_id: Generated<number>;
  organization_id: string;
  id: string;
  status: "requested" | "approved" | "rejected";
  /** When the access was canceled; its end date was set then. */
  canceled_at: string | null;
  /** The state consumers were last told through Activated/Deactivated events. */
  active: number;
  start_at: string | null;
  end_at: string | null;
  provider_data_product_id: string;
  provider_output_port_id: string;
  /** The provider's owner team when the access was requested; the current one is read through provider_product_row_id. */
  provider_team_id: string;
  /** `resources.row_id` of the provider data product the access was requested against. */
  provider_product_row_id: number | null;
  /** The output port's data contract when the access was requested (also `provider.dataContractId` of the document). */
  provider_data_contract_id: string | null;
  consumer_type: "dataProduct" | "team" | "user";
  consumer_data_product_id: string | null;
  /** The consuming team when the access was requested (the team itself, or the consumer product's owner). */
  consumer_team_id: string | null;
  /** `resources.row_id` of the consuming team or data product the access was requested by. */
  consumer_row_id: number | null;
  doc: string;
  provisioning: string | null;
  created_at: string;
  updated_at: string;
  /** When the scheduler next tries an activation an access.activate policy refused (migration 0235); null otherwise. */
  activation_retry_at: string | null;
}

/** A person who signs in to the web app. */
export interface UsersTable {
  id: string;
  /** Lower-cased. */
  email: string;
  /** `scrypt$N$r$p$salt$hash` (base64url). Accounts are made with a password; the column is nullable only for history. */
  password_hash: string | null;
  created_at: string;
}

export interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: "owner" | "member";
  created_at: string;
}

export interface SessionsTable {
  id: string;
  /** SHA-256 of the cookie's token, hex. The token itself is never stored. */
  token_hash: string;
  user_id: string;
  /** The organization the person currently works in. */
  organization_id: string | null;
  /** Per-session secret that mutating requests authenticated by the cookie must echo. */
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  /** How the session began: `password` or `oidc` (migration 0180). */
  signed_in_with: string;
  /** The ID token an `oidc` session began with, for the provider's sign-out (migration 0230). */
  id_token: string | null;
}

/** One-time links that let a person set a password (and, on first start, choose an address). */
export interface InvitationsTable {
  /** SHA-256 of the link's token, hex. */
  token_hash: string;
  organization_id: string;
  /** Lower-cased; null only on the first-start setup link, where the person chooses the address. */
  email: string | null;
  role: "owner" | "member";
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Published test runs of data contracts (`datacontract test --publish`). */
export interface TestResultsTable {
  row_id: Generated<number>;
  organization_id: string;
  id: string;
  data_contract_id: string;
  server: string | null;
  result: string;
  owner_team_id: string | null;
  summary: string;
  doc: string;
  created_at: string;
}

export interface SignInFailuresTable {
  /** SHA-256 of what is counted: an address, a client address, or the pair. */
  key: string;
  failures: number;
  window_started_at: string;
}

/** Every document a data contract has had, numbered from 1 per contract. */
export interface ContractVersionsTable {
  organization_id: string;
  contract_id: string;
  n: number;
  /** The document's own version string (ODCS `version`, DCS `info.version`). */
  version: string | null;
  doc: string;
  /** Who stored it: `api-key:<id>`, `user:<id>` or `system`. */
  principal: string;
  created_at: string;
}

/** SQLite only: one row, moved by triggers on `api_keys` whenever what a key may do changes (migration 0092). */
export interface ApiKeyChangesTable {
  generation: number;
}

/** A team's notification channel (migration 0170, docs/notifications.md). */
export interface NotificationChannelsTable {
  organization_id: string;
  team_id: string;
  id: string;
  name: string;
  type: string;
  endpoint: string | null;
  addresses: string | null;
  enabled: number;
  secret: string | null;
  created_at: string;
  updated_at: string;
}

export interface NotificationCursorsTable {
  organization_id: string;
  last_seq: number;
}

export interface NotificationDeliveriesTable {
  row_id: Generated<number>;
  id: string;
  organization_id: string;
  target: string;
  team_id: string | null;
  channel_id: string | null;
  user_id: string | null;
  event_id: string;
  event_seq: number;
  kind: string;
  message: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  next_attempt_at: string;
  lease_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  delivered_at: string | null;
}

export interface NotificationsTable {
  row_id: Generated<number>;
  id: string;
  organization_id: string;
  user_id: string;
  event_id: string;
  kind: string;
  message: string;
  created_at: string;
  read_at: string | null;
}

export interface NotificationSettingsTable {
  organization_id: string;
  user_id: string;
  disabled_kinds: string;
  updated_at: string;
}

export interface DB {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  resources: ResourcesTable;
  events: EventsTable;
  event_batches: EventBatchesTable;
  accesses: AccessesTable;
  users: UsersTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  sign_in_failures: SignInFailuresTable;
  test_results: TestResultsTable;
  contract_versions: ContractVersionsTable;
  api_key_changes: ApiKeyChangesTable;
  oidc_sign_ins: OidcSignInsTable;
  oidc_identities: OidcIdentitiesTable;
  identity_settings: IdentitySettingsTable;
  scim_users: ScimUsersTable;
  scim_groups: ScimGroupsTable;
  scim_group_members: ScimGroupMembersTable;
  notification_channels: NotificationChannelsTable;
  notification_cursors: NotificationCursorsTable;
  notification_deliveries: NotificationDeliveriesTable;
  notifications: NotificationsTable;
  notification_settings: NotificationSettingsTable;
  access_approvals: AccessApprovalsTable;
  lineage_events: LineageEventsTable;
  lineage_edges: LineageEdgesTable;
  lineage_edge_keys: LineageEdgeKeysTable;
  lineage_violations: LineageViolationsTable;
  usage_spans: UsageSpansTable;
  usage_violations: UsageViolationsTable;
}

/** Users an organization's SCIM client provisions (migration 0181). */
export interface ScimUsersTable {
  organization_id: string;
  id: string;
  user_id: string;
  user_name_key: string;
  active: number;
  /** JSON text of the resource as last written, without id and meta. */
  doc: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ScimGroupsTable {
  organization_id: string;
  id: string;
  display_name: string;
  external_id: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ScimGroupMembersTable {
  organization_id: string;
  group_id: string;
  scim_user_id: string;
}

/** A sign-in under way at the OpenID provider (migration 0180); deleted when used or expired. */
export interface OidcSignInsTable {
  /** SHA-256 of the `state` sent to the provider, hex. */
  state_hash: string;
  code_verifier: string;
  nonce: string;
  created_at: string;
  expires_at: string;
}

export interface OidcIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  last_sign_in_at: string;
}

export interface IdentitySettingsTable {
  organization_id: string;
  /** JSON text: `{ scimGroupMappings: [...] }`. */
  group_mapping: string;
  /** 1 while people may sign in with a password, 0 once the organization signs in only with SSO. */
  password_sign_in: number;
  updated_at: string;
  /** `default` or `custom-team-roles` (migration 0182). */
  team_roles_mode: Generated<string>;
  /** JSON text: the custom catalog, kept when the mode goes back to default. */
  team_roles: Generated<string>;
}

/** One principal's approval of an access that needs several (migration 0190). */
export interface AccessApprovalsTable {
  organization_id: string;
  access_id: string;
  principal: string;
  scope: string;
  /** JSON array of the team ids the principal acted for. */
  team_ids: string;
  comment: string | null;
  created_at: string;
  /** JSON object: the principal's team role by team id, for a person (migration 0235). */
  team_roles: string | null;
  /** 1 for the access's first approval, 2 for the next… (migration 0235); null before it. */
  position: number | null;
}

/** OpenLineage run events as sent (migration 0205, docs/lineage.md). */
export interface LineageEventsTable {
  row_id: Generated<number>;
  organization_id: string;
  run_id: string;
  event_type: string | null;
  event_time: string;
  job_namespace: string;
  job_name: string;
  data_product_id: string | null;
  output_port_name: string | null;
  team_id: string | null;
  doc: string;
  created_at: string;
}

/** One job reading ("input") or writing ("output") one dataset, read out of a run event. */
export interface LineageEdgesTable {
  row_id: Generated<number>;
  organization_id: string;
  event_row_id: number;
  job_namespace: string;
  job_name: string;
  dataset_namespace: string;
  dataset_name: string;
  direction: "input" | "output";
}

/** Each distinct job–dataset edge of an organization once, as it was first stored (migration 0290). */
export interface LineageEdgeKeysTable {
  organization_id: string;
  dataset_namespace: string;
  dataset_name: string;
  job_namespace: string;
  job_name: string;
  direction: "input" | "output";
}

/** A job's read of an output port's dataset without an active access, once per job, port and day. */
export interface LineageViolationsTable {
  organization_id: string;
  job_namespace: string;
  job_name: string;
  data_product_id: string;
  output_port_id: string;
  day: string;
  consumer_data_product_id: string;
  consumer_team_id: string | null;
  run_id: string;
  dataset_namespace: string;
  dataset_name: string;
  created_at: string;
}

/** OpenTelemetry spans that used a data product, port or access (migration 0210, docs/lineage.md "Usage"). */
export interface UsageSpansTable {
  row_id: Generated<number>;
  organization_id: string;
  trace_id: string;
  span_id: string;
  scope_name: string | null;
  service_name: string | null;
  data_product_id: string | null;
  output_port_id: string | null;
  data_contract_id: string | null;
  access_id: string | null;
  consumer_type: "dataProduct" | "team" | "service";
  consumer_id: string;
  start_time: string;
  end_time: string | null;
  team_id: string | null;
  resource: string;
  scope: string;
  span: string;
  created_at: string;
}

/** A use of an output port without an active access, once per consumer, service, port and day. */
export interface UsageViolationsTable {
  organization_id: string;
  consumer_type: string;
  consumer_id: string;
  /** The consumer's team: a team consumer's id, a data product consumer's owner team when used (migration 0270). */
  consumer_team_id: string | null;
  service_name: string;
  data_product_id: string;
  output_port_id: string;
  day: string;
  trace_id: string;
  span_id: string;
  created_at: string;
}
