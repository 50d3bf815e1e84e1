/**
 * The catalogs the search benchmark asks: assets written in bulk, in-process, with the rows a PUT
 * writes, and data contracts written through Steward's own service. A million assets through the
 * API, at tens of creates per second on this machine, would take hours.
 */
import { sql, type Kysely } from "kysely";
import type { Principal } from "../src/platform/auth.js";
import { systemClock } from "../src/platform/clock.js";
import { withMembers } from "../src/platform/objects.js";
import { assetKind } from "../src/modules/assets/service.js";
import { resourceRepository } from "../src/modules/catalog/resource-repository.js";
import { createServices } from "../src/services.js";
import { benchConfig, withDatabase, type Seeded } from "./support.js";

/** Assets per transaction: large enough that a commit's flush costs nothing per row. */
const ROWS_PER_TRANSACTION = 5_000;

/**
 * Writes assets `from` … `from + count - 1` as `make(i)` describes them, under the id `idOf(i)`,
 * as a PUT creating each would store it: the same document text (the body with its `id`), the
 * same columns from the asset kind's own `columns` (title, status, the search words), inserted by
 * the same repository statement, so SQLite's FTS5 triggers and PostgreSQL's trigger that writes
 * `search_entries` index each row as they do a PUT's. What a PUT also writes and this does not
 * is its event in the log: search reads only `resources` and its index (`resources_search` on
 * SQLite, `search_entries` on PostgreSQL), so the log's rows change nothing it reads. On
 * PostgreSQL the tables are then vacuumed and analyzed, as autovacuum would soon after such a
 * load: the planner's statistics, and GIN's pending list of new entries merged into the index.
 */
export async function bulkAssets(target: Seeded, count: number, idOf: (i: number) => string, make: (i: number) => Record<string, unknown>): Promise<void> {
  await withDatabase(target.url, async (database) => {
    for (let start = 0; start < count; start += ROWS_PER_TRANSACTION) {
      const end = Math.min(count, start + ROWS_PER_TRANSACTION);
      await database.db.transaction().execute(async (trx) => {
        const at = systemClock.now().toISOString();
        for (let i = start; i < end; i++) {
          const id = idOf(i);
          const incoming = withMembers(make(i), { id }) as Parameters<typeof assetKind.columns>[0];
          const doc = assetKind.prepare ? assetKind.prepare(incoming, undefined) : incoming;
          const json = JSON.stringify(doc);
          await resourceRepository.insert(trx, target.organizationId, "asset", id, withMembers(assetKind.columns(doc), { json }), at);
        }
      });
    }
    if (database.dialect === "postgres") await vacuumed(database.db);
  });
  target.size += count;
}

/**
 * Writes `count` data contracts through Steward's data contract service in this process: each one
 * is a PUT without the HTTP, with its checks, its version and its event.
 */
export async function contracts(target: Seeded, count: number, make: (i: number) => Record<string, unknown>): Promise<void> {
  await withDatabase(target.url, async (database) => {
    const services = createServices(benchConfig(target.url), database, systemClock);
    const principal: Principal = { organizationId: target.organizationId, scope: "organization", teamIds: [] };
    let next = 0;
    // A few writes at once, as clients would send them: they share the event log's commits.
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let i = next++; i < count; i = next++) await services.dataContracts.put(principal, `contract-${i}`, make(i));
    }));
    if (database.dialect === "postgres") await vacuumed(database.db);
  });
}

/** PostgreSQL after a bulk load, as autovacuum soon leaves it: statistics, and GIN's pending list merged into the index. */
async function vacuumed(db: Kysely<any>): Promise<void> {
  await sql`analyze resources`.execute(db);
  await sql`vacuum analyze search_entries`.execute(db);
}
