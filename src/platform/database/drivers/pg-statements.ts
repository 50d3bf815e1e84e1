import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import { perConnection } from "./per-connection.js";

/** Distinct statements given a name at most; later new ones run unnamed, so variable SQL cannot fill every connection's memory. */
const CAPACITY = 500;

/**
 * Only single plain data statements are named: transaction control (`begin`, `savepoint …`) gains
 * nothing from it, and a text of several statements (group commit's `begin` with its lock, say)
 * cannot be prepared at all: it has to go as a simple query.
 */
const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * The pool as Kysely's PostgreSQL dialect sees it, with each statement prepared once per
 * connection. Kysely sends every query unnamed, so PostgreSQL parses and plans it again each
 * time; a request's handful of lookups are the same few dozen statements over and over, and on
 * a short indexed read that parse and plan costs about as much as running it. Naming a statement
 * by its SQL text lets `pg` send only Bind and Execute after the first use on a connection (it
 * remembers per connection what it prepared there).
 *
 * Every connection plans each execution afresh (`plan_cache_mode = force_custom_plan`): after a
 * few runs PostgreSQL would otherwise switch to one generic plan chosen without the values, and a
 * plan chosen while a table was still empty (a fresh installation's first requests) can read the
 * wrong index for as long as the connection lives, a scan of every asset for each lookup of one.
 * What naming saves is the parse and analysis, which is most of it for Steward's short statements.
 */
export function withNamedStatements(pool: pg.Pool, capacity = CAPACITY): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    const known = names.get(text);
    if (known !== undefined) return known;
    if (names.size >= capacity || !NAMEABLE.test(text) || text.includes(";")) return undefined;
    const name = `stw_${names.size}`;
    names.set(text, name);
    return name;
  };
  // One wrapper per connection (per-connection.ts), configured when it is made.
  const wrapperOf = perConnection(async (client: pg.PoolClient): Promise<PostgresPoolClient> => {
    try {
      await client.query("set plan_cache_mode = force_custom_plan");
    } catch (error) {
      // A connection that cannot take the setting is not handed out, nor kept in the pool.
      client.release(error as Error);
      throw error;
    }
    return {
      query: ((text: unknown, parameters?: ReadonlyArray<unknown>) => {
        if (typeof text !== "string") return client.query(text as pg.Submittable);
        const name = nameOf(text);
        const values = parameters ? [...parameters] : [];
        return name === undefined ? client.query(text, values) : client.query({ name, text, values });
      }) as unknown as PostgresPoolClient["query"],
      // pg-pool gives the client a new `release` at every checkout: look it up at each call.
      release: () => client.release(),
    };
  });
  return {
    connect: async () => wrapperOf(await pool.connect()),
    end: () => pool.end(),
  };
}
