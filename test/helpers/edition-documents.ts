/** What the edition tests of the document formats build their cases from: a valid document, and one small change to it. */
export type Doc = Record<string, unknown>;

/** A valid ODCS contract of the given edition, with one table of two columns. */
export function odcsContract(apiVersion: string): Doc {
  return {
    apiVersion,
    kind: "DataContract",
    id: "parcels",
    version: "1.0.0",
    status: "active",
    domain: "logistics",
    schema: [
      {
        name: "parcels",
        physicalType: "table",
        properties: [
          { name: "parcel_id", logicalType: "string", physicalType: "varchar", required: true },
          { name: "weight", logicalType: "number" },
        ],
      },
    ],
  };
}

/** Sets (or, with undefined, removes) the member at a dotted path, creating what is missing. */
export function change(doc: Doc, path: string, value: unknown): Doc {
  const keys = path.split(".");
  let node = doc as Record<string, unknown>;
  for (const [i, key] of keys.slice(0, -1).entries()) {
    node[key] ??= /^\d+$/.test(keys[i + 1]!) ? [] : {};
    node = node[key] as Record<string, unknown>;
  }
  const last = keys.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return doc;
}
