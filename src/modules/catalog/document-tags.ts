import { sql, type RawBuilder } from "kysely";
import type { DialectName } from "../../platform/database/index.js";

/**
 * True for a stored document whose top-level `tags` array holds exactly `tag`. Both data product
 * formats (ODPS and DPS) keep their tags there as strings. A `tags` that is not an array matches
 * nothing rather than failing the query.
 */
export function hasTag(dialect: DialectName, tag: string): RawBuilder<boolean> {
  if (dialect === "postgres") {
    return sql<boolean>`exists (select 1 from jsonb_array_elements(case when jsonb_typeof(doc::jsonb -> 'tags') = 'array' then doc::jsonb -> 'tags' else '[]'::jsonb end) as t(tag) where jsonb_typeof(t.tag) = 'string' and t.tag #>> '{}' = ${tag})`;
  }
  return sql<boolean>`exists (select 1 from json_each(case when json_type(doc, '$.tags') = 'array' then json_extract(doc, '$.tags') else '[]' end) as t where t.type = 'text' and t.value = ${tag})`;
}
