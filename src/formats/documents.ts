/**
 * What every reader of a catalog document decides first (docs/product.md §4): which format it is
 * in, and which team owns it. The server's formats, the connectors and the web app all read
 * documents; they all ask here, so they never disagree. Pure and free of imports, so the web app
 * and the connectors use this same file.
 */

/** A document as read from YAML or JSON: any members at all. */
type Loose = { readonly [member: string]: unknown };

const record = (value: unknown): Loose | undefined => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Loose) : undefined);

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** ODPS: its `apiVersion` or `kind: DataProduct` mark it; every other product is a Data Product Specification document. */
export function isOdps(doc: Loose): boolean {
  return doc.apiVersion !== undefined || doc.kind === "DataProduct";
}

/** ODCS: its `apiVersion` or `kind: DataContract` mark it. */
export function isOdcs(doc: Loose): boolean {
  return doc.apiVersion !== undefined || doc.kind === "DataContract";
}

/** Names a Data Contract Specification edition 1.x or later. */
export function namesDcs1(doc: Loose): boolean {
  return typeof doc.dataContractSpecification === "string" && /^[1-9]/.test(doc.dataContractSpecification);
}

/** Data Contract Specification 1.x: it says so, or it has `models` and no 0.9 `schema`. */
export function isDcs1(doc: Loose): boolean {
  return namesDcs1(doc) || (doc.schema === undefined && record(doc.models) !== undefined);
}

export type ContractFormatName = "odcs" | "dcs" | "dcs-0.9";
export type ProductFormatName = "odps" | "dps";

/** In detection order: ODCS, DCS 1.x, and DCS 0.9 for everything else. */
export function contractFormatNameOf(doc: Loose): ContractFormatName {
  return isOdcs(doc) ? "odcs" : isDcs1(doc) ? "dcs" : "dcs-0.9";
}

export function productFormatNameOf(doc: Loose): ProductFormatName {
  return isOdps(doc) ? "odps" : "dps";
}

/** The owner team's id and the member that names it (quoted in violations). */
export interface Ownership {
  owner?: string;
  ownerField: string;
}

/** The first `customProperties` entry with this `property`, and where it is. */
export function customProperty(list: unknown, name: string): { value: unknown; index: number } | undefined {
  if (!Array.isArray(list)) return undefined;
  const index = list.findIndex((p) => record(p)?.property === name);
  return index === -1 ? undefined : { value: (list[index] as Loose).value, index };
}

/**
 * The owner rule of the open standards (ODPS, ODCS): `team.name`, else the custom property
 * `owner`, else `domain`. With none, the owner is missing and `team.name` is where it belongs.
 */
export function standardOwnership(doc: Loose): Ownership {
  const team = text(record(doc.team)?.name);
  if (team !== undefined) return { owner: team, ownerField: "team.name" };
  const custom = customProperty(doc.customProperties, "owner");
  if (custom && text(custom.value) !== undefined) return { owner: text(custom.value), ownerField: `customProperties[${custom.index}].value` };
  const domain = text(doc.domain);
  if (domain !== undefined) return { owner: domain, ownerField: "domain" };
  return { ownerField: "team.name" };
}

/** The owner rule of the Data Product and Data Contract Specifications: `info.owner`. */
export function infoOwnership(doc: Loose): Ownership {
  const owner = text(record(doc.info)?.owner);
  return owner === undefined ? { ownerField: "info.owner" } : { owner, ownerField: "info.owner" };
}

/** A data product's owner team, whatever its format. */
export function productOwner(doc: Loose): string | undefined {
  return (isOdps(doc) ? standardOwnership(doc) : infoOwnership(doc)).owner;
}

/** A data contract's owner team, whatever its format. */
export function contractOwner(doc: Loose): string | undefined {
  return (isOdcs(doc) ? standardOwnership(doc) : infoOwnership(doc)).owner;
}
