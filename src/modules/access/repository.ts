import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import type { DB, DialectName, Executor } from "../../platform/database/index.js";
import type { AccessesTable } from "../../platform/database/tables.js";
import { chunked } from "../../platform/database/chunks.js";
import { inOrderIndex } from "../../platform/database/in-order-index.js";
import { inRowIdOrder, withinByteBudget } from "../../platform/database/byte-budget.js";
import { WRITE_LATER } from "../../platform/database/drivers/pg-write-behind.js";
import type { AccessStatus } from "./lifecycle.js";
import type { Access, Provisioning } from "./shapes.js";

export type ConsumerType = AccessesTable["consumer_type"];

/** An access as the service works with it: the document plus the columns queries need. */
export interface AccessRecord {
  organizationId: string;
  id: string;
  status: AccessStatus;
  canceledAt: string | null;
  active: boolean;
  startAt: string | null;
  endAt: string | null;
  providerDataProductId: string;
  /** The id of the port the access holds (see NewAccess): the document keeps the name it was requested by. */
  providerOutputPortId: string;
  providerProductRowId: number | null;
  consumerType: ConsumerType;
  consumerDataProductId: string | null;
  consumerRowId: number | null;
  /** The teams when the access was requested: shown when the product or team is gone. */
  requestedProviderTeamId: string;
  requestedConsumerTeamId: string | null;
  /**
   * The teams now, read through the catalog rows the access was requested against: the product's
   * current owner; null when that product or team has been deleted since.
   */
  providerTeamId: string | null;
  consumerTeamId: string | null;
  doc: Access;
  provisioning: Provisioning | null;
  createdAt: string;
  updatedAt: string;
  /** When the scheduler next tries an activation an access.activate policy refused (docs/policies.md). */
  activationRetryAt?: string | null;
}

export interface AccessListFilter {
  providerDataProductId?: string;
  consumerDataProductId?: string;
  /** Either side's data product. */
  dataProductId?: string;
  providerTeamId?: string;
  consumerTeamId?: string;
  consumerType?: ConsumerType;
  status?: AccessStatus;
  active?: boolean;
  offset: number;
  limit: number;
}

type Scope = ExpressionBuilder<DB & { a: AccessesTable; p: DB["resources"]; c: DB["resources"] }, "a" | "p" | "c">;

/** The consumer's team now: the team itself, or the consuming data product's current owner. */
const liveConsumerTeam = (eb: Scope) =>
  eb.case().when("a.consumer_type", "=", "team").then(eb.ref("c.id")).when("a.consumer_type", "=", "dataProduct").then(eb.ref("c.owner_team_id")).else(null).end();

/** Accesses with the catalog rows their live teams are read through. */
function joined(ex: Executor) {
  return ex
    .selectFrom("accesses as a")
    .leftJoin("resources as p", "p.row_id", "a.provider_product_row_id")
    .leftJoin("resources as c", "c.row_id", "a.consumer_row_id");
}

function select(ex: Executor) {
  return joined(ex)
    .selectAll("a")
    .select((eb) => [eb.ref("p.owner_team_id").as("live_provider_team_id"), liveConsumerTeam(eb as Scope).as("live_consumer_team_id")]);
}

type Row = AccessesTable & { row_id: number; live_provider_team_id: string | null; live_consumer_team_id: string | null };

function toRecord(row: Row): AccessRecord {
  return {
    organizationId: row.organization_id,
    id: row.id,
    status: row.status,
    canceledAt: row.canceled_at,
    active: Number(row.active) === 1,
    startAt: row.start_at,
    endAt: row.end_at,
    providerDataProductId: row.provider_data_product_id,
    providerOutputPortId: row.provider_output_port_id,
    providerProductRowId: row.provider_product_row_id,
    consumerType: row.consumer_type,
    consumerDataProductId: row.consumer_data_product_id,
    consumerRowId: row.consumer_row_id,
    requestedProviderTeamId: row.provider_team_id,
    requestedConsumerTeamId: row.consumer_team_id,
    providerTeamId: row.live_provider_team_id,
    consumerTeamId: row.live_consumer_team_id,
    doc: JSON.parse(row.doc) as Access,
    provisioning: row.provisioning === null ? null : (JSON.parse(row.provisioning) as Provisioning),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    activationRetryAt: row.activation_retry_at,
  };
}

function toRow(r: AccessRecord) {
  return {
    organization_id: r.organizationId,
    id: r.id,
    status: r.status,
    canceled_at: r.canceledAt,
    active: r.active ? 1 : 0,
    start_at: r.startAt,
    end_at: r.endAt,
    provider_data_product_id: r.providerDataProductId,
    provider_output_port_id: r.providerOutputPortId,
    provider_team_id: r.requestedProviderTeamId,
    provider_product_row_id: r.providerProductRowId,
    provider_data_contract_id: (r.doc.provider.dataContractId as string | null | undefined) ?? null,
    consumer_type: r.consumerType,
    consumer_data_product_id: r.consumerDataProductId,
    consumer_team_id: r.requestedConsumerTeamId,
    consumer_row_id: r.consumerRowId,
    doc: JSON.stringify(r.doc),
    provisioning: r.provisioning === null ? null : JSON.stringify(r.provisioning),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    activation_retry_at: r.activationRetryAt ?? null,
  };
}

/**
 * Not closed at `now` (lifecycle.ts `stageOf`): requested, or approved and not both canceled and
 * past its end. Such an access still depends on its product, port and teams.
 */
const isOpen = (eb: ExpressionBuilder<DB & { a: AccessesTable }, "a">, now: string): Expression<SqlBool> =>
  eb.or([
    eb("a.status", "=", "requested"),
    eb.and([eb("a.status", "=", "approved"), eb.or([eb("a.canceled_at", "is", null), eb("a.end_at", "is", null), eb("a.end_at", ">", now)])]),
    eb("a.active", "=", 1),
  ]);

/** Open accesses of an organization whose `column` holds `value`. */
async function countOpen(
  ex: Executor,
  organizationId: string,
  column: "a.consumer_data_product_id" | "a.provider_data_contract_id",
  value: string,
  now: string,
): Promise<number> {
  const row = await ex
    .selectFrom("accesses as a")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("a.organization_id", "=", organizationId)
    .where(column, "=", value)
    .where((eb) => isOpen(eb, now))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The only SQL over accesses. */
export const accessRepository = {
  /**
   * One access. Inside a write transaction pass `{ lock: dialect }`: on PostgreSQL the row is
   * then locked until commit (SQLite has one writer and needs no lock).
   */
  async get(ex: Executor, organizationId: string, id: string, options: { lock?: DialectName } = {}): Promise<AccessRecord | undefined> {
    const row = await select(ex)
      .where("a.organization_id", "=", organizationId)
      .where("a.id", "=", id)
      .$if(options.lock === "postgres", (qb) => qb.forUpdate("a"))
      .executeTakeFirst();
    return row && toRecord(row as Row);
  },

  /** Ids of approved, not yet canceled accesses a person consumes (consumer {userId}), whose userId is one of `userIds`. */
  async openForPerson(ex: Executor, organizationId: string, userIds: string[]): Promise<string[]> {
    const rows = await ex
      .selectFrom("accesses")
      .select(["id", "doc"])
      .where("organization_id", "=", organizationId)
      .where("consumer_type", "=", "user")
      .where("status", "=", "approved")
      .where("canceled_at", "is", null)
      .orderBy("row_id")
      .execute();
    const wanted = new Set(userIds.map((u) => u.toLowerCase()));
    return rows.filter((r) => {
      const userId = (JSON.parse(r.doc) as { consumer?: { userId?: unknown } }).consumer?.userId;
      return typeof userId === "string" && wanted.has(userId.toLowerCase());
    }).map((r) => r.id);
  },

  async insert(ex: Executor, record: AccessRecord): Promise<void> {
    await ex.insertInto("accesses").values(toRow(record)).modifyEnd(WRITE_LATER).execute();
  },

  async update(ex: Executor, record: AccessRecord): Promise<void> {
    const { organization_id, id, created_at, ...changes } = toRow(record);
    await ex.updateTable("accesses").set(changes).where("organization_id", "=", organization_id).where("id", "=", id).modifyEnd(WRITE_LATER).execute();
  },

  async delete(ex: Executor, organizationId: string, id: string): Promise<void> {
    await ex.deleteFrom("accesses").where("organization_id", "=", organizationId).where("id", "=", id).execute();
  },

  /**
   * One page of accesses in creation order: at most `f.limit`, and no more than `maxBytes` of
   * documents and provisioning records (but at least one). Sizes are read first, so accesses past
   * the budget are never loaded; `cut` says the budget ended the page while more follow.
   */
  async list(ex: Executor, organizationId: string, f: AccessListFilter, maxBytes = Number.POSITIVE_INFINITY): Promise<{ records: AccessRecord[]; cut: boolean }> {
    const sizes = await joined(ex)
      .select(["a.row_id", sql<number | string>`octet_length(a.doc) + coalesce(octet_length(a.provisioning), 0)`.as("bytes")])
      .where("a.organization_id", "=", organizationId)
      .$if(f.providerDataProductId !== undefined, (qb) => qb.where("a.provider_data_product_id", "=", f.providerDataProductId!))
      .$if(f.consumerDataProductId !== undefined, (qb) => qb.where("a.consumer_data_product_id", "=", f.consumerDataProductId!))
      .$if(f.dataProductId !== undefined, (qb) =>
        qb.where((eb) => eb.or([eb("a.provider_data_product_id", "=", f.dataProductId!), eb("a.consumer_data_product_id", "=", f.dataProductId!)])),
      )
      .$if(f.providerTeamId !== undefined, (qb) => qb.where("p.owner_team_id", "=", f.providerTeamId!))
      .$if(f.consumerTeamId !== undefined, (qb) => qb.where((eb) => eb(liveConsumerTeam(eb as Scope), "=", f.consumerTeamId!)))
      .$if(f.consumerType !== undefined, (qb) => qb.where("a.consumer_type", "=", f.consumerType!))
      .$if(f.status !== undefined, (qb) => qb.where("a.status", "=", f.status!))
      .$if(f.active !== undefined, (qb) => qb.where("a.active", "=", f.active ? 1 : 0))
      // A data product's accesses are found through that product's indexes; otherwise the page is read in order.
      .$if(f.providerDataProductId === undefined && f.consumerDataProductId === undefined && f.dataProductId === undefined, (qb) => qb.where(inOrderIndex("a.row_id")))
      .orderBy("a.row_id")
      .offset(f.offset)
      .limit(f.limit)
      .execute();
    const { rowIds, cut } = withinByteBudget(sizes, maxBytes);
    if (rowIds.length === 0) return { records: [], cut: false };
    // Row ids name rows for good, and these came from the organization's accesses just above.
    const rows = await select(ex).where("a.row_id", "in", rowIds).execute();
    inRowIdOrder(rows, rowIds);
    return { records: rows.map((r) => toRecord(r as Row)), cut };
  },

  /**
   * Open accesses that depend on a data product (or on some of its output ports) as provider:
   * how many, and the output ports they name.
   */
  async openForProduct(ex: Executor, organizationId: string, dataProductId: string, now: string, outputPortIds?: string[]): Promise<{ count: number; portIds: string[] }> {
    let count = 0;
    const portIds: string[] = [];
    // Without ports, one query for the whole product; with them, one per slice of the list.
    for (const ports of outputPortIds === undefined ? [undefined] : chunked(outputPortIds)) {
      const rows = await ex
        .selectFrom("accesses as a")
        .select((eb) => ["a.provider_output_port_id as port", eb.fn.countAll<number>().as("n")])
        .where("a.organization_id", "=", organizationId)
        .where("a.provider_data_product_id", "=", dataProductId)
        .$if(ports !== undefined, (qb) => qb.where("a.provider_output_port_id", "in", ports!))
        .where((eb) => isOpen(eb, now))
        .groupBy("a.provider_output_port_id")
        .orderBy("a.provider_output_port_id")
        .execute();
      for (const row of rows) {
        count += Number(row.n);
        portIds.push(row.port);
      }
    }
    return { count, portIds };
  },

  /** Open accesses a data product consumes. */
  countOpenConsumedBy: (ex: Executor, organizationId: string, dataProductId: string, now: string): Promise<number> =>
    countOpen(ex, organizationId, "a.consumer_data_product_id", dataProductId, now),

  /** Open accesses requested under a data contract. */
  countOpenForContract: (ex: Executor, organizationId: string, dataContractId: string, now: string): Promise<number> =>
    countOpen(ex, organizationId, "a.provider_data_contract_id", dataContractId, now),

  /**
   * Approved accesses granted under a data contract that have not ended at `now`: the consumers a
   * breaking change to that contract would break. At most `limit`, oldest first.
   */
  async approvedUnderContract(ex: Executor, organizationId: string, contractId: string, now: string, limit: number): Promise<AccessRecord[]> {
    const rows = await select(ex)
      .where("a.organization_id", "=", organizationId)
      .where("a.provider_data_contract_id", "=", contractId)
      .where("a.status", "=", "approved")
      .where((eb) => eb.or([eb("a.end_at", "is", null), eb("a.end_at", ">", now)]))
      .orderBy("a.row_id")
      .limit(limit)
      .execute();
    return rows.map((r) => toRecord(r as Row));
  },

  /** Open accesses a team provides (owns the product of) or consumes, as the catalog stands now. */
  async countOpenForTeam(ex: Executor, organizationId: string, teamId: string, now: string): Promise<number> {
    const row = await ex
      .selectFrom("accesses as a")
      .leftJoin("resources as p", "p.row_id", "a.provider_product_row_id")
      .leftJoin("resources as c", "c.row_id", "a.consumer_row_id")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("a.organization_id", "=", organizationId)
      .where((eb) => eb.or([eb("p.owner_team_id", "=", teamId), eb(liveConsumerTeam(eb as Scope), "=", teamId)]))
      .where((eb) => isOpen(eb as never, now))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Organizations with accesses whose active flag is out of date at `now` (see `dueIn`). */
  async dueOrganizations(ex: Executor, now: string, limit: number): Promise<string[]> {
    const rows = await ex.selectFrom("accesses as a").select("a.organization_id").where((eb) => isDue(eb, now)).groupBy("a.organization_id").limit(limit).execute();
    return rows.map((r) => r.organization_id);
  },

  /**
   * Up to `limit` accesses of one organization whose active flag is out of date at `now`:
   * approved ones whose window has opened, active ones whose window has closed. Inside a write
   * transaction on PostgreSQL the rows are locked, skipping those another process holds, so
   * several schedulers share the work instead of queueing behind one another.
   */
  async dueIn(ex: Executor, dialect: DialectName, organizationId: string, now: string, limit: number): Promise<AccessRecord[]> {
    const rows = await select(ex)
      .where("a.organization_id", "=", organizationId)
      .where((eb) => isDue(eb as never, now))
      .orderBy("a.row_id")
      .limit(limit)
      .$if(dialect === "postgres", (qb) => qb.forUpdate("a").skipLocked())
      .execute();
    return rows.map((r) => toRecord(r as Row));
  },
};

function isDue(eb: ExpressionBuilder<DB & { a: AccessesTable }, "a">, now: string): Expression<SqlBool> {
  const windowOpen = eb.and([
    eb.or([eb("a.start_at", "is", null), eb("a.start_at", "<=", now)]),
    eb.or([eb("a.end_at", "is", null), eb("a.end_at", ">", now)]),
  ]);
  return eb.or([
    // An activation a policy refused waits for its retry time (docs/policies.md).
    eb.and([eb("a.active", "=", 0), eb("a.status", "=", "approved"), windowOpen, eb.or([eb("a.activation_retry_at", "is", null), eb("a.activation_retry_at", "<=", now)])]),
    eb.and([eb("a.active", "=", 1), eb.or([eb("a.status", "!=", "approved"), eb.not(windowOpen)])]),
  ]);
}

