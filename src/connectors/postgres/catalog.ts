/**
 * What the connector reads from the catalog, and the one place that knows how a data product
 * document spells its output ports, their `server` and its owner (Data Product Specification and
 * ODPS alike). Everything read here is chosen by a document author: it only ever selects entries
 * of the operator's configuration, never a host or a role by itself.
 */
import { customProperty as customPropertyEntry, productOwner as ownerOf } from "../../formats/documents.js";
import { findOutputPort } from "../../product-formats/ports.js";

export interface AccessView {
  id: string;
  info: { active?: boolean };
  provider: { dataProductId: string; outputPortId: string; teamId?: string | null; dataContractId?: string };
  roles?: unknown;
  consumer: { dataProductId?: string; teamId?: string; userId?: string };
  provisioning?: { status?: string } | null;
}

export interface PortView {
  id?: unknown;
  name?: unknown;
  version?: unknown;
  type?: unknown;
  server?: unknown;
  customProperties?: unknown;
}

export interface ProductView {
  id?: string;
  apiVersion?: unknown;
  kind?: unknown;
  info?: { owner?: unknown };
  team?: { name?: unknown };
  domain?: unknown;
  outputPorts?: unknown;
  customProperties?: unknown;
}

/** Where a port says its data is: the server's name (its `host`) and the object in it. */
export interface ServerReference {
  name?: string;
  database?: string;
  schema?: string;
  table?: string;
}

function customProperty(holder: { customProperties?: unknown }, property: string): unknown {
  return customPropertyEntry(holder.customProperties, property)?.value;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The output port an access names: `id` in DPS; `name@version`, or a `name` with one version, in ODPS. */
export function findPort(product: ProductView, outputPortId: string): PortView | undefined {
  return findOutputPort(product as Record<string, unknown>, outputPortId)?.raw as PortView | undefined;
}

export function portType(port: PortView): string | undefined {
  return text(port.type) ?? text(customProperty(port, "type"));
}

/** The port's `server` (or ODPS custom property `server`), reduced to the members the connector reads. */
export function serverReference(port: PortView): ServerReference {
  const server = port.server ?? customProperty(port, "server");
  if (!server || typeof server !== "object" || Array.isArray(server)) return {};
  const s = server as Record<string, unknown>;
  return { name: text(s.host), database: text(s.database), schema: text(s.schema), table: text(s.table) };
}

/** The owner team's id, by the one owner rule the server applies too (src/formats/documents.ts). */
export function productOwner(product: ProductView): string | undefined {
  return ownerOf(product as Record<string, unknown>);
}
