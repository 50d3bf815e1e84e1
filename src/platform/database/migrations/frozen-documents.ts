/**
 * What migrations 0080 and 0120 read of stored documents, frozen as the formats read them when
 * those migrations were written (docs/product.md §4): a later change to a format must never
 * change what an old migration does to the rows it migrates. Nothing here imports live code.
 */

type Doc = Record<string, unknown>;

const isRecord = (value: unknown): value is Doc => typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
const isOdps = (doc: Doc) => doc.apiVersion !== undefined || doc.kind === "DataProduct";
const isOdcs = (doc: Doc) => doc.apiVersion !== undefined || doc.kind === "DataContract";
const info = (doc: Doc): Doc => (isRecord(doc.info) ? doc.info : {});

function customValue(list: unknown, name: string): unknown {
  if (!Array.isArray(list)) return undefined;
  const entry = list.find((p) => isRecord(p) && p.property === name) as Doc | undefined;
  return entry?.value;
}

/** A data product's business domain and archetype: ODPS at the top level (1.1 `type`, else custom properties), DPS under `info`. */
export function productDomainAndArchetype(doc: Doc): { domain?: string; archetype?: string } {
  if (!isOdps(doc)) return { domain: str(info(doc).domain), archetype: str(info(doc).archetype) };
  const archetype =
    doc.apiVersion === "v1.1.0" && str(doc.type) !== undefined ? str(doc.type) : (str(customValue(doc.customProperties, "archetype")) ?? str(customValue(doc.customProperties, "type")));
  return { domain: str(doc.domain), archetype };
}

/** A data contract's business domain: ODCS at the top level, the Data Contract Specification under `info`. */
export function contractDomain(doc: Doc): string | undefined {
  return isOdcs(doc) ? str(doc.domain) : str(info(doc).domain);
}

/**
 * The id of the port an access names: DPS `id`; ODPS `<name>@<version>` (its name alone when a 1.1
 * port has no version), or just `<name>` when only one version of that name exists.
 */
export function portIdFor(product: Doc, ref: string): string | undefined {
  const ports = Array.isArray(product.outputPorts) ? product.outputPorts.filter(isRecord) : [];
  if (!isOdps(product)) return ports.find((p) => typeof p.id === "string" && p.id === ref)?.id as string | undefined;
  const v11 = product.apiVersion === "v1.1.0";
  const odps = ports
    .filter((p) => typeof p.name === "string" && (typeof p.version === "string" || (v11 && p.version === undefined)))
    .map((p) => ({ name: p.name as string, version: p.version as string | undefined, id: p.version === undefined ? String(p.name) : `${String(p.name)}@${String(p.version)}` }));
  if (odps.some((p) => p.id === ref)) return ref;
  const named = odps.filter((p) => p.version !== undefined && p.name === ref);
  return named.length === 1 ? named[0].id : undefined;
}
