import { CompiledQuery, createQueryId, sql, type Kysely } from "kysely";
import type { Database } from "../../src/platform/database/index.js";
import type { DB } from "../../src/platform/database/tables.js";
import { recordingQueries } from "./recorded-queries.js";

/** The queries `run` sends through `database`, as SQL with their parameters, without changing what they do. */
export async function sentQueries(database: Database, run: (ex: Kysely<DB>) => Promise<unknown>): Promise<CompiledQuery[]> {
  const { db, sent } = recordingQueries(database.db);
  await run(db);
  return sent.map((node) => db.getExecutor().compileQuery(node, createQueryId()));
}

/**
 * The database's plan of a query, as one text (PostgreSQL's `explain`, SQLite's `explain query
 * plan`). `avoidingSorts` asks PostgreSQL for the plan it makes when sorting costs more than any
 * other way (`enable_sort = off`): whether an index can give the rows in the query's order at
 * all, which its costs decide otherwise, and on small test tables a sort is cheap.
 */
export async function planOf(database: Database, query: CompiledQuery, { avoidingSorts = false } = {}): Promise<string> {
  const explain = database.dialect === "postgres" ? "explain " : "explain query plan ";
  const { rows } = await database.db.transaction().execute(async (trx) => {
    if (avoidingSorts && database.dialect === "postgres") await sql`set local enable_sort = off`.execute(trx);
    return trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + query.sql, [...query.parameters]));
  });
  return rows.map((r) => String(r["QUERY PLAN"] ?? r.detail)).join("\n");
}
