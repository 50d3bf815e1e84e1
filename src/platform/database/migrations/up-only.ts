import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";

/**
 * A migration as every one of Steward's is: steps forward only, given the database and its
 * dialect (SQLite or PostgreSQL), for the list in index.ts.
 */
export function upOnly(up: (db: Kysely<any>, dialect: DialectName) => Promise<void>): (dialect: DialectName) => Migration {
  return (dialect) => ({ up: (db) => up(db, dialect) });
}
