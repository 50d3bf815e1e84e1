import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/**
 * Access requests take the reference product's semantics (docs/product.md §5):
 * - `info.status` is only requested, approved or rejected. A stored `canceled` access that had
 *   been approved becomes `approved` with `canceled_at` set (its end date was already set by the
 *   cancel); one canceled before any approval becomes `rejected`, closed as it was, with
 *   `canceled_at` telling what happened. `granted` is then the same as `approved` and goes.
 * - The provider's and the consumer's team are read through the catalog row an access was
 *   requested against (`provider_product_row_id`, `consumer_row_id`), so a new owner of the
 *   product takes over its accesses, while a team or product deleted and created again under the
 *   same id starts with none.
 */
export default upOnly(async (db) => {
  await db.schema.alterTable("accesses").addColumn("canceled_at", "text").execute();
  await db.schema.alterTable("accesses").addColumn("provider_product_row_id", "integer").execute();
  await db.schema.alterTable("accesses").addColumn("consumer_row_id", "integer").execute();

  await sql`
        update accesses set
          canceled_at = coalesce(
            (select max(e.time) from events e
              where e.organization_id = accesses.organization_id and e.subject = accesses.id and e.kind = 'AccessCanceledEvent'),
            updated_at),
          status = case when granted = 1 then 'approved' else 'rejected' end
        where status = 'canceled'`.execute(db);
  await sql`
        update accesses set provider_product_row_id = (
          select r.row_id from resources r
          where r.organization_id = accesses.organization_id and r.kind = 'dataproduct' and r.id = accesses.provider_data_product_id)`.execute(db);
  await sql`
        update accesses set consumer_row_id = (
          select r.row_id from resources r
          where r.organization_id = accesses.organization_id
            and ((accesses.consumer_type = 'team' and r.kind = 'team' and r.id = accesses.consumer_team_id)
              or (accesses.consumer_type = 'dataProduct' and r.kind = 'dataproduct' and r.id = accesses.consumer_data_product_id)))`.execute(db);

  await db.schema.dropIndex("accesses_due_start").execute();
  await db.schema.alterTable("accesses").dropColumn("granted").execute();
  // The scheduler's question "which approved accesses are due to start".
  await db.schema.createIndex("accesses_due_start").on("accesses").columns(["active", "status", "start_at"]).execute();
  await db.schema.createIndex("accesses_by_consumer_row").on("accesses").columns(["consumer_row_id"]).execute();
  await db.schema.createIndex("accesses_by_provider_row").on("accesses").columns(["provider_product_row_id"]).execute();
});
