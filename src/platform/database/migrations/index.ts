import { Migrator, sql, type Migration, type MigrationProvider } from "kysely";
import type { Database, DialectName } from "../index.js";
import foundation from "./0001_foundation.js";
import access from "./0002_access.js";
import people from "./0003_people.js";
import eventsBySubject from "./0004_events_by_subject.js";
import eventPrincipal from "./0005_event_principal.js";
import invitations from "./0010_invitations.js";
import accessSemantics from "./0030_access_semantics.js";
import accessContract from "./0031_access_contract.js";
import testResults from "./0050_test_results.js";
import apiKeyRevoker from "./0051_api_key_revoker.js";
import contractVersions from "./0070_contract_versions.js";
import domainArchetype from "./0080_domain_archetype.js";
import apiKeyNotify from "./0090_api_key_notify.js";
import partialFilterIndexes from "./0091_partial_filter_indexes.js";
import apiKeyChanges from "./0092_api_key_changes.js";
import eventBatches from "./0100_event_batches.js";
import listsInOrder from "./0110_lists_in_order.js";
import accessPortIds from "./0120_access_port_ids.js";
import noSecretHint from "./0125_no_secret_hint.js";
import apiKeyUsers from "./0145_api_key_users.js";
import contractYamlText from "./0150_contract_yaml_text.js";
import notifications from "./0170_notifications.js";
import identity from "./0180_identity.js";
import scim from "./0181_scim.js";
import teamRoles from "./0182_team_roles.js";
import accessApprovals from "./0190_access_approvals.js";
import search from "./0200_search.js";
import lineage from "./0205_lineage.js";
import usage from "./0210_usage.js";
import sessionIdToken from "./0230_session_id_token.js";
import policyGates from "./0235_policy_gates.js";
import violationReads from "./0270_violation_reads.js";
import lineageEventsOnce from "./0285_lineage_events_once.js";
import lineageIngestIndexes from "./0290_lineage_ingest_indexes.js";
import searchEntries from "./0291_search_entries.js";

/**
 * Versioned migrations, one file each, in code so the `steward` binary carries them. Names sort
 * in the order they apply. What one that has shipped builds never changes: a change of schema is a
 * new file listed here. Its code may be restructured (shared helpers, `upOnly`) only as far as
 * test/migrations-schema.test.ts proves the schema it builds is the recorded one.
 */
const MIGRATIONS: Record<string, (dialect: DialectName) => Migration> = {
  "0001_foundation": foundation,
  "0002_access": access,
  "0003_people": people,
  "0004_events_by_subject": eventsBySubject,
  "0005_event_principal": eventPrincipal,
  "0010_invitations": invitations,
  "0030_access_semantics": accessSemantics,
  "0031_access_contract": accessContract,
  "0050_test_results": testResults,
  "0051_api_key_revoker": apiKeyRevoker,
  "0070_contract_versions": contractVersions,
  "0080_domain_archetype": domainArchetype,
  "0090_api_key_notify": apiKeyNotify,
  "0091_partial_filter_indexes": partialFilterIndexes,
  "0092_api_key_changes": apiKeyChanges,
  "0100_event_batches": eventBatches,
  "0110_lists_in_order": listsInOrder,
  "0120_access_port_ids": accessPortIds,
  "0125_no_secret_hint": noSecretHint,
  "0145_api_key_users": apiKeyUsers,
  "0150_contract_yaml_text": contractYamlText,
  "0170_notifications": notifications,
  "0180_identity": identity,
  "0181_scim": scim,
  "0182_team_roles": teamRoles,
  "0190_access_approvals": accessApprovals,
  "0200_search": search,
  "0205_lineage": lineage,
  "0210_usage": usage,
  "0230_session_id_token": sessionIdToken,
  "0235_policy_gates": policyGates,
  "0270_violation_reads": violationReads,
  "0285_lineage_events_once": lineageEventsOnce,
  "0290_lineage_ingest_indexes": lineageIngestIndexes,
  "0291_search_entries": searchEntries,
};

function migrations(dialect: DialectName): Record<string, Migration> {
  return Object.fromEntries(Object.entries(MIGRATIONS).map(([name, make]) => [name, make(dialect)]));
}

/** Applies pending migrations; `upTo` stops after that one (tests of a migration over older data). */
export async function migrateToLatest(database: Database, upTo?: string): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(database.dialect) };
  // The migrator takes a lock itself (an advisory lock on PostgreSQL), so concurrent starts are safe.
  // Kysely looks for its bookkeeping tables in every schema unless told which one; name the
  // connection's own, or another schema's tables would be taken for ours.
  const schema =
    database.dialect === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]?.schema
      : undefined;
  // Migrations of different areas are independent of each other, and a database may have applied
  // a later-numbered one before an earlier-numbered one arrived: apply whatever is pending.
  const migrator = new Migrator({ db: database.db, provider, migrationTableSchema: schema, allowUnorderedMigrations: true });
  const { error, results } = upTo === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(upTo);
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
