import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/**
 * Reads of the uses and reads without an agreement (docs/lineage.md): a provider product's uses
 * without an agreement are listed by product and day with the consumer's team (as the event
 * carried it; for records made before, a team consumer's id or a consumer product's owner now),
 * and the retention sweep removes both kinds of record by when they were made, across organizations.
 */
export default upOnly(async (db) => {
  await db.schema.alterTable("usage_violations").addColumn("consumer_team_id", "text").execute();
  await sql`update usage_violations set consumer_team_id = consumer_id where consumer_type = 'team'`.execute(db);
  await sql`update usage_violations set consumer_team_id = (select r.owner_team_id from resources r where r.organization_id = usage_violations.organization_id and r.kind = 'dataproduct' and r.id = usage_violations.consumer_id) where consumer_type = 'dataProduct'`.execute(db);
  await db.schema.createIndex("usage_violations_by_product").on("usage_violations").columns(["organization_id", "data_product_id", "day"]).execute();
  await db.schema.createIndex("usage_violations_by_arrival").on("usage_violations").columns(["created_at"]).execute();
  await db.schema.createIndex("lineage_violations_by_arrival").on("lineage_violations").columns(["created_at"]).execute();
});
