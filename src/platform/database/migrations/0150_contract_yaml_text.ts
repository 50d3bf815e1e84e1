import { upOnly } from "./up-only.js";

export default upOnly(async (db) => {
  // A data contract sent as YAML keeps its text as written — comments, order, quoting — beside
  // the parsed document (docs/formats.md). Existing rows have none: they are served as
  // generated YAML until the next YAML write.
  await db.schema.alterTable("resources").addColumn("yaml_text", "text").execute();
});
