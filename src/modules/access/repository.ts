import type { Selectable } from "kysely";
import type { DialectName, Executor } from "../../platform/database/index.js";
import type { AccessesTable } from "../../platform/database/tables.js";
import type { AccessStatus } from "./lifecycle.js";
import type { Access, Provisioning } from "./shapes.js";

export type ConsumerType = "dataProduct" | "team" | "user";

/** An access as the service works with it: the document plus the columns queries need. */
export interface AccessRecord {
  organizationId: string;
  id: string;
  status: AccessStatus;
  granted: boolean;
  active: boolean;
  startAt: string | null;
  endAt: string | null;
  providerDataProductId: string;
  providerOutputPortId: string;
  providerTeamId: string;
  consumerType: ConsumerType;
  consumerDataProductId: string | null;
  consumerTeamId: string | null;
  doc: Access;
  provisioning: Provisioning | null;
  createdAt: string;
  updatedAt: string;
}

export interface AccessListFilter {
  providerDataProductId?: string;
  consumerDataProductId?: string;
  consumerType?: ConsumerType;
  status?: string;
  offset: number;
  limit: number;
}

function toRecord(row: Selectable<AccessesTable>): AccessRecord {
  return {
    organizationId: row.organization_id,
    id: row.id,
    status: row.status,
    granted: row.granted === 1,
    active: row.active === 1,
    startAt: row.start_at,
    endAt: row.end_at,
    providerDataProductId: row.provider_data_product_id,
    providerOutputPortId: row.provider_output_port_id,
    providerTeamId: row.provider_team_id,
    consumerType: row.consumer_type,
    consumerDataProductId: row.consumer_data_product_id,
    consumerTeamId: row.consumer_team_id,
    doc: JSON.parse(row.doc) as Access,
    provisioning: row.provisioning === null ? null : (JSON.parse(row.provisioning) as Provisioning),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRow(r: AccessRecord) {
  return {
    organization_id: r.organizationId,
    id: r.id,
    status: r.status,
    granted: r.granted ? 1 : 0,
    active: r.active ? 1 : 0,
    start_at: r.startAt,
    end_at: r.endAt,
    provider_data_product_id: r.providerDataProductId,
    provider_output_port_id: r.providerOutputPortId,
    provider_team_id: r.providerTeamId,
    consumer_type: r.consumerType,
    consumer_data_product_id: r.consumerDataProductId,
    consumer_team_id: r.consumerTeamId,
    doc: JSON.stringify(r.doc),
    provisioning: r.provisioning === null ? null : JSON.stringify(r.provisioning),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

/** Statuses in which an access still depends on its data product and output port. */
const IN_USE: AccessStatus[] = ["requested", "approved"];

export const accessRepository = {
  /**
   * One access. Inside a write transaction pass `{ lock: dialect }`: on PostgreSQL the row is
   * then locked until commit (SQLite has one writer and needs no lock).
   */
  async get(ex: Executor, organizationId: string, id: string, options: { lock?: DialectName } = {}): Promise<AccessRecord | undefined> {
    const row = await ex
      .selectFrom("accesses")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .$if(options.lock === "postgres", (qb) => qb.forUpdate())
      .executeTakeFirst();
    return row && toRecord(row);
  },

  async insert(ex: Executor, record: AccessRecord): Promise<void> {
    await ex.insertInto("accesses").values(toRow(record)).execute();
  },

  async update(ex: Executor, record: AccessRecord): Promise<void> {
    const { organization_id, id, created_at, ...changes } = toRow(record);
    await ex.updateTable("accesses").set(changes).where("organization_id", "=", organization_id).where("id", "=", id).execute();
  },

  async delete(ex: Executor, organizationId: string, id: string): Promise<void> {
    await ex.deleteFrom("accesses").where("organization_id", "=", organizationId).where("id", "=", id).execute();
  },

  async list(ex: Executor, organizationId: string, f: AccessListFilter): Promise<AccessRecord[]> {
    const rows = await ex
      .selectFrom("accesses")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .$if(f.providerDataProductId !== undefined, (qb) => qb.where("provider_data_product_id", "=", f.providerDataProductId!))
      .$if(f.consumerDataProductId !== undefined, (qb) => qb.where("consumer_data_product_id", "=", f.consumerDataProductId!))
      .$if(f.consumerType !== undefined, (qb) => qb.where("consumer_type", "=", f.consumerType!))
      .$if(f.status !== undefined, (qb) => qb.where("status", "=", f.status as AccessStatus))
      .orderBy("row_id")
      .offset(f.offset)
      .limit(f.limit)
      .execute();
    return rows.map(toRecord);
  },

  /** Accesses that still depend on a data product (or on some of its output ports). */
  async countInUse(ex: Executor, organizationId: string, dataProductId: string, outputPortIds?: string[]): Promise<number> {
    if (outputPortIds !== undefined && outputPortIds.length === 0) return 0;
    const row = await ex
      .selectFrom("accesses")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("organization_id", "=", organizationId)
      .where("provider_data_product_id", "=", dataProductId)
      .$if(outputPortIds !== undefined, (qb) => qb.where("provider_output_port_id", "in", outputPortIds!))
      .where((eb) => eb.or([eb("status", "in", IN_USE), eb("active", "=", 1)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /**
   * Accesses whose active flag is out of date at `now`: granted ones whose window has opened,
   * and active ones whose window has closed. Across all organizations, oldest first.
   */
  async due(ex: Executor, now: string, limit: number): Promise<Array<{ organizationId: string; id: string }>> {
    const starting = ex
      .selectFrom("accesses")
      .select(["organization_id", "id", "row_id"])
      .where("active", "=", 0)
      .where("granted", "=", 1)
      .where("status", "in", ["approved", "canceled"])
      .where((eb) => eb.or([eb("start_at", "is", null), eb("start_at", "<=", now)]))
      .where((eb) => eb.or([eb("end_at", "is", null), eb("end_at", ">", now)]));
    const ending = ex
      .selectFrom("accesses")
      .select(["organization_id", "id", "row_id"])
      .where("active", "=", 1)
      .where((eb) => eb.or([eb("end_at", "<=", now), eb("start_at", ">", now)]));
    const rows = await starting.unionAll(ending).orderBy("row_id").limit(limit).execute();
    return rows.map((r) => ({ organizationId: r.organization_id, id: r.id }));
  },
};
