import { contractDomain, productDomainAndArchetype } from "./frozen-documents.js";
import { upOnly } from "./up-only.js";

/** Rows re-read per round trip: bounded memory however many documents an installation holds. */
const BATCH = 500;

/**
 * The business domain of data products and data contracts, and the archetype of data products,
 * as indexed columns, so the list filters `domainId` and `archetype` are conditions the database
 * answers from an index. Documents stored before this migration get their values by being read
 * again through the same format code that fills the columns on every write.
 */
export default upOnly(async (db) => {
  await db.schema.alterTable("resources").addColumn("domain", "text").execute();
  await db.schema.alterTable("resources").addColumn("archetype", "text").execute();
  await db.schema.createIndex("resources_by_domain").on("resources").columns(["organization_id", "kind", "domain"]).execute();
  await db.schema.createIndex("resources_by_archetype").on("resources").columns(["organization_id", "kind", "archetype"]).execute();

  let after = 0;
  for (;;) {
    const rows: Array<{ row_id: number | string; kind: string; doc: string }> = await db
      .selectFrom("resources")
      .select(["row_id", "kind", "doc"])
      .where("kind", "in", ["dataproduct", "datacontract"])
      .where("row_id", ">", after)
      .orderBy("row_id")
      .limit(BATCH)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      const { domain, archetype } = factsOf(row.kind, row.doc);
      if (domain !== undefined || archetype !== undefined) {
        await db
          .updateTable("resources")
          .set({ domain: storable(domain), archetype: storable(archetype) })
          .where("row_id", "=", row.row_id)
          .execute();
      }
    }
    after = Number(rows[rows.length - 1]!.row_id);
  }
});

function factsOf(kind: string, text: string): { domain?: string; archetype?: string } {
  const doc = JSON.parse(text) as Record<string, unknown>;
  if (kind === "dataproduct") return productDomainAndArchetype(doc);
  return { domain: contractDomain(doc) };
}

/** As on every write: PostgreSQL refuses NUL in text. */
function storable(text: string | undefined): string | null {
  return text === undefined ? null : text.replace(/\u0000/g, "");
}
