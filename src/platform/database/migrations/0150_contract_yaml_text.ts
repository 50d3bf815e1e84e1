import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";

export default function migration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      // A data contract sent as YAML keeps its text as written — comments, order, quoting — beside
      // the parsed document (docs/formats.md). Existing rows have none: they are served as
      // generated YAML until the next YAML write.
      await db.schema.alterTable("resources").addColumn("yaml_text", "text").execute();
    },
  };
}
