import { portIdFor } from "./frozen-documents.js";
import { upOnly } from "./up-only.js";

/** Accesses read and written per round trip. */
const PAGE = 500;

/**
 * An access holds the output port it was requested for by the port's id. One that named an ODPS
 * port by its bare name kept that name, which stops naming any port once the product adds a
 * second version of it; the port could then be removed under an open access. Each such access now
 * holds the id of the port its name resolves to (`<name>@<version>`). Its document keeps the name
 * the client sent. A name that already names two versions is left as it is: which one it meant
 * cannot be known.
 */
export default upOnly(async (db) => {
  let after: { organization_id: string; id: string } | undefined;
  for (;;) {
    const rows: Array<{ organization_id: string; id: string; port: string; product: string }> = await db
      .selectFrom("accesses as a")
      .innerJoin("resources as r", (join) =>
        join.onRef("r.organization_id", "=", "a.organization_id").on("r.kind", "=", "dataproduct").onRef("r.id", "=", "a.provider_data_product_id"),
      )
      .select(["a.organization_id", "a.id", "a.provider_output_port_id as port", "r.doc as product"])
      .$if(after !== undefined, (qb) =>
        qb.where((eb) =>
          eb.or([
            eb("a.organization_id", ">", after!.organization_id),
            eb.and([eb("a.organization_id", "=", after!.organization_id), eb("a.id", ">", after!.id)]),
          ]),
        ),
      )
      .orderBy("a.organization_id")
      .orderBy("a.id")
      .limit(PAGE)
      .execute();
    for (const row of rows) {
      const portId = portIdFor(JSON.parse(row.product) as Record<string, unknown>, row.port);
      if (portId === undefined || portId === row.port) continue;
      await db
        .updateTable("accesses")
        .set({ provider_output_port_id: portId })
        .where("organization_id", "=", row.organization_id)
        .where("id", "=", row.id)
        .execute();
    }
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1];
  }
});
