import type { DataContract, DataProduct, SchemaObject } from "./api.js";
import { contractTitle } from "../../src/contract-formats/title.js";
import { customProperty as customPropertyEntry, isOdcs, isOdps, standardOwnership } from "../../src/formats/documents.js";

export { isOdcs, isOdps };

/**
 * What the pages show of a catalog document, whichever format it is in (docs/product.md §4): the
 * Data Product/Contract Specification keeps it under `info`, the open standards (ODPS, ODCS) at
 * the top level, with the owner in `team.name`, a custom property `owner`, or `domain`: the owner
 * rule and the format detection are the server's own (src/formats/documents.ts).
 */

type Loose = Record<string, any>;

export interface PortSummary {
  /** What an access names in `outputPortId`. */
  id: string;
  /** A readable name: the port's name, else its id. */
  name: string;
  description?: string;
  type?: string;
  status?: string;
  server?: Record<string, unknown>;
  contractId?: string;
  containsPii?: boolean;
  autoApprove?: boolean;
}

export interface DocumentSummary {
  id: string;
  title: string;
  owner?: string;
  status?: string;
  version?: string;
  description?: string;
  format: "odps" | "dps" | "odcs" | "dcs";
  tags: string[];
}

const customProperty = (doc: Loose, name: string): unknown => customPropertyEntry(doc.customProperties, name)?.value;

const text = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

const standardOwner = (doc: Loose): string | undefined => standardOwnership(doc).owner;

function standardDescription(doc: Loose): string | undefined {
  const d = doc.description;
  return text(d) ?? text(d?.purpose) ?? text(d?.usage);
}


export function productSummary(p: DataProduct): DocumentSummary {
  const doc = p as Loose;
  if (isOdps(doc)) {
    return { id: p.id, title: text(doc.name) ?? p.id, owner: standardOwner(doc), status: text(doc.status), version: text(doc.version), description: standardDescription(doc), format: "odps", tags: tags(doc.tags) };
  }
  const info: Loose = doc.info ?? {};
  return { id: p.id, title: text(info.title) ?? p.id, owner: text(info.owner), status: text(info.status), description: text(info.description), format: "dps", tags: tags(doc.tags) };
}

export function contractSummary(c: DataContract): DocumentSummary {
  const doc = c as Loose;
  if (isOdcs(doc)) {
    return { id: c.id, title: contractTitle(doc, c.id), owner: standardOwner(doc), status: text(doc.status), version: text(doc.version), description: standardDescription(doc), format: "odcs", tags: tags(doc.tags) };
  }
  const info: Loose = doc.info ?? {};
  return { id: c.id, title: contractTitle(doc, c.id), owner: text(info.owner), status: text(info.status), version: text(info.version), description: text(info.description), format: "dcs", tags: tags(doc.tags) };
}

const tags = (v: unknown): string[] => (Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : []);

const flag = (v: unknown): boolean | undefined => (v === true || v === "true" ? true : v === false || v === "false" ? false : undefined);

export function outputPorts(p: DataProduct): PortSummary[] {
  const doc = p as Loose;
  const ports: Loose[] = Array.isArray(doc.outputPorts) ? doc.outputPorts : [];
  if (isOdps(doc)) {
    return ports.map((port) => {
      const id = port.version ? `${port.name}@${port.version}` : String(port.name ?? "");
      return {
        id,
        name: text(port.name) ? `${port.name}${port.version ? ` ${port.version}` : ""}` : id,
        description: text(port.description),
        type: text(port.type) ?? text(customProperty(port, "type")),
        status: text(customProperty(port, "status")),
        server: (customProperty(port, "server") as Record<string, unknown> | undefined) ?? undefined,
        contractId: text(port.contractId),
        containsPii: flag(customProperty(port, "containsPii")),
        autoApprove: flag(customProperty(port, "autoApprove")),
      };
    });
  }
  return ports.map((port) => ({
    id: String(port.id),
    name: text(port.name) ?? String(port.id),
    description: text(port.description),
    type: text(port.type),
    status: text(port.status),
    server: port.server,
    contractId: text(port.dataContractId),
    containsPii: flag(port.containsPii),
    autoApprove: flag(port.autoApprove),
  }));
}

/** The schemas of a Data Contract Specification 0.9 document (one or a list); none for other formats. */
export const schemaList = (c: { schema?: unknown }): SchemaObject[] => {
  const s = c.schema as SchemaObject | SchemaObject[] | undefined;
  if (Array.isArray(s)) return s.filter((x) => x && typeof x === "object" && "type" in x);
  return s && typeof s === "object" && "type" in s ? [s] : [];
};
