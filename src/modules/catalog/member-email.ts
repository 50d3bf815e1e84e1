import { sql, type RawBuilder } from "kysely";
import type { DialectName } from "../../platform/database/index.js";

/**
 * True for a stored team document with a direct member whose `emailAddress` equals `email`,
 * ignoring letter case. Each database walks the `members` array with its own JSON functions;
 * a `members` that is not an array matches nothing rather than failing the query.
 */
export function hasMemberEmail(dialect: DialectName, email: string): RawBuilder<boolean> {
  const wanted = email.toLowerCase();
  if (dialect === "postgres") {
    return sql<boolean>`exists (select 1 from jsonb_array_elements(case when jsonb_typeof(doc::jsonb -> 'members') = 'array' then doc::jsonb -> 'members' else '[]'::jsonb end) as m(member) where jsonb_typeof(m.member) = 'object' and lower(m.member ->> 'emailAddress') = ${wanted})`;
  }
  return sql<boolean>`exists (select 1 from json_each(case when json_type(doc, '$.members') = 'array' then json_extract(doc, '$.members') else '[]' end) as m where m.type = 'object' and lower(json_extract(m.value, '$.emailAddress')) = ${wanted})`;
}
