import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/** The list filters' indexes: each on the organization, the kind, and the column a filter compares. */
const FILTER_INDEXES = [
  ["resources_by_owner", "owner_team_id"],
  ["resources_by_domain", "domain"],
  ["resources_by_archetype", "archetype"],
] as const;

/**
 * The list filters' indexes hold only the rows that have a value in the filtered column.
 *
 * As full indexes they began with `(organization_id, kind)`, just like `resources_identity`, so
 * PostgreSQL could answer a lookup of one document by its id from them too, reading every
 * document of that kind and discarding all but one. It did so on a table not yet analyzed: a
 * fresh installation's first asset synchronization slowed from 400 to 120 documents a second
 * within 24,000 assets, each lookup scanning them all. A partial index can serve only a query
 * whose conditions imply its own, and only a filter's comparison (`archetype = …`,
 * `domain in (…)`) implies `is not null`: a lookup by id is left with the identity index. Rows
 * without the value (most assets) are no longer indexed at all.
 */
export default upOnly(async (db) => {
  for (const [name, column] of FILTER_INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on("resources")
      .columns(["organization_id", "kind", column])
      .where(sql.ref(column), "is not", null)
      .execute();
  }
});
