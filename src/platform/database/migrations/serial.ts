import { sql, type RawBuilder } from "kysely";
import type { DialectName } from "../index.js";

/** An ever-growing integer key: AUTOINCREMENT on SQLite never reuses a value, like bigserial. */
export function serial(dialect: DialectName): RawBuilder<unknown> {
  return dialect === "postgres" ? sql`bigserial primary key` : sql`integer primary key autoincrement`;
}
