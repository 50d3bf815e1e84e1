import type { Selectable } from "kysely";
import { Retention } from "../../platform/retention.js";
import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database, Executor } from "../../platform/database/index.js";
import type { DB } from "../../platform/database/tables.js";
import { notFound } from "../../platform/errors.js";
import type { EventLog } from "../../events/log.js";
import type { DocumentLimits } from "../catalog/document-limits.js";
import { lineageRepository } from "./repository.js";
import { violationRepository, type ViolationTable } from "./read-records-repository.js";

/** What a service of read records is made with (src/services.ts). */
export type ReadRecordsArgs = [database: Database, events: EventLog, clock: Clock, retentionDays: number, limits: DocumentLimits];

/** Where a service keeps what it is sent and the reads without an agreement found in it. */
export interface ReadRecordTables<T extends ViolationTable> {
  /** The name of the retention, as its sweep logs it. */
  name: string;
  /** Removes up to `limit` of what was sent, of any organization, stored before `before`. */
  deleteStoredBefore(ex: Executor, before: string, limit: number): Promise<number>;
  violations: T;
}

/**
 * What lineage (run events) and usage (spans) keep alike (docs/lineage.md): what they are sent and
 * the reads without an agreement found in it, both removed past the retention, and those reads
 * answered per provider product.
 */
export abstract class ReadRecordsService<T extends ViolationTable> {
  /** Removes what was sent, and the reads without an agreement found in it, past the retention (the server starts its hourly sweep). */
  readonly retention: Retention;

  constructor(
    private readonly tables: ReadRecordTables<T>,
    protected readonly database: Database,
    protected readonly events: EventLog,
    protected readonly clock: Clock,
    retentionDays: number,
    protected readonly limits: DocumentLimits,
  ) {
    this.retention = new Retention(tables.name, clock, retentionDays, [
      (cutoff, limit) => tables.deleteStoredBefore(database.db, cutoff, limit),
      (cutoff, limit) => violationRepository.deleteBefore(database.db, tables.violations, cutoff, limit),
    ]);
  }

  /**
   * The reads without an agreement recorded against a provider product's ports, newest first; a
   * product not in the catalog is a 404, so a mistyped id does not read as a clean record.
   */
  protected async recordedViolations(p: Principal, dataProductId: string, limit: number): Promise<Array<Selectable<DB[T]>>> {
    const db = this.database.db;
    const rows = await violationRepository.of(db, this.tables.violations, p.organizationId, dataProductId, limit);
    if (rows.length === 0 && (await lineageRepository.product(db, p.organizationId, dataProductId)) === undefined) throw notFound("Data product", dataProductId);
    return rows;
  }
}
