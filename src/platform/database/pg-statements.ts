import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";

/** Distinct statements given a name at most; later new ones run unnamed, so variable SQL cannot fill every connection's memory. */
const CAPACITY = 500;

/** Only plain data statements are named: transaction control (`begin`, `savepoint …`) gains nothing from it. */
const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * The pool as Kysely's PostgreSQL dialect sees it, with each statement prepared once per
 * connection. Kysely sends every query unnamed, so PostgreSQL parses and plans it again each
 * time; a request's handful of lookups are the same few dozen statements over and over, and on
 * a short indexed read that parse and plan costs about as much as running it. Naming a statement
 * by its SQL text lets `pg` send only Bind and Execute after the first use on a connection (it
 * remembers per connection what it prepared there).
 *
 * A prepared statement's plan is kept by PostgreSQL and re-planned when the tables it reads
 * change; a statement that reads `*` of a table whose columns a newer Steward added fails once
 * ("cached plan must not change result type"), which is why migrations run before serving.
 */
export function withNamedStatements(pool: pg.Pool, capacity = CAPACITY): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    const known = names.get(text);
    if (known !== undefined) return known;
    if (names.size >= capacity || !NAMEABLE.test(text)) return undefined;
    const name = `stw_${names.size}`;
    names.set(text, name);
    return name;
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      return {
        query: ((text: unknown, parameters?: ReadonlyArray<unknown>) => {
          if (typeof text !== "string") return client.query(text as pg.Submittable);
          const name = nameOf(text);
          const values = parameters ? [...parameters] : [];
          return name === undefined ? client.query(text, values) : client.query({ name, text, values });
        }) as unknown as PostgresPoolClient["query"],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}
