/**
 * Steps for what many tables declare alike. Each adds its columns where it stands in the chain,
 * in the order given, so a table reads, and is built, column by column as before.
 */

import type { CreateTableBuilder } from "kysely";
import type { DialectName } from "../index.js";
import { serial } from "./serial.js";

/** A step of a `createTable` chain, applied with `.$call(step)`. */
type TableStep = <T extends string>(table: CreateTableBuilder<T, any>) => CreateTableBuilder<T, any>;

type ColumnType = "text" | "integer" | "bigint";

/** The organization a row belongs to: required, and its rows go when the organization does. */
export const belongsToOrganization: TableStep = (table) =>
  table.addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"));

/** Columns of one type that every row has (not null), in this order. */
export function required(type: ColumnType, ...names: string[]): TableStep {
  return (table) => names.reduce((t, name) => t.addColumn(name, type, (c) => c.notNull()), table);
}

/** Columns of one type a row may leave empty (null), in this order. */
export function optional(type: ColumnType, ...names: string[]): TableStep {
  return (table) => names.reduce((t, name) => t.addColumn(name, type), table);
}

/** Rows of an organization numbered in the order they are written: `row_id` first, then the organization. */
export function organizationRows(dialect: DialectName): TableStep {
  return (table) => belongsToOrganization(table.addColumn("row_id", serial(dialect)));
}
