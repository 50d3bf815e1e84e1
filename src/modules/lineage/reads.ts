import { normalizeNamespace, portPattern, portsHolding, type Dataset, type DatasetPattern, type PortLocation } from "./naming.js";

/** An output port with the team that owns its product, and the datasets it holds. */
export interface MappedPort extends PortLocation {
  ownerTeamId: string | null;
}

/**
 * Who reads: the data product a run works for and its owner team, or (a usage span's consumer,
 * docs/lineage.md "Usage") a team alone, with no data product.
 */
export interface Consumer {
  dataProductId: string | null;
  teamId: string | null;
}

/** A run's read of a port's dataset that needs an agreement. */
export interface PortRead {
  port: MappedPort;
  dataset: Dataset;
}

/** A catalog data product as the lineage reads it: its id, owner and output ports. */
export interface CatalogProduct {
  id: string;
  ownerTeamId: string | null;
  outputPorts: Array<{ id?: unknown; type?: unknown; server?: unknown }>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export type MappedEntry = { port: MappedPort; pattern: DatasetPattern };

/** Mapped ports, also by dataset namespace: a dataset is compared only with the ports of its namespace. */
export interface PortIndex {
  entries: MappedEntry[];
  byNamespace: Map<string, MappedEntry[]>;
}

/** The ports (of the index) that hold `dataset`; see `portsHolding`. */
export function portsOf(index: PortIndex, dataset: Dataset): MappedPort[] {
  const candidates = index.byNamespace.get(normalizeNamespace(dataset.namespace));
  return candidates === undefined ? [] : portsHolding(candidates, dataset);
}

/** Every port of the products whose server names datasets, with its pattern (naming.ts). */
export function mapPorts(products: readonly CatalogProduct[]): PortIndex {
  const mapped: MappedEntry[] = [];
  for (const product of products) {
    for (const raw of product.outputPorts) {
      if (typeof raw.id !== "string" || !isRecord(raw.server)) continue;
      const port: MappedPort = {
        dataProductId: product.id,
        outputPortId: raw.id,
        ownerTeamId: product.ownerTeamId,
        type: typeof raw.type === "string" ? raw.type : undefined,
        server: raw.server,
      };
      const pattern = portPattern(port);
      if (pattern !== undefined) mapped.push({ port, pattern });
    }
  }
  const byNamespace = new Map<string, MappedEntry[]>();
  for (const entry of mapped) {
    const list = byNamespace.get(entry.pattern.namespace);
    if (list === undefined) byNamespace.set(entry.pattern.namespace, [entry]);
    else list.push(entry);
  }
  return { entries: mapped, byNamespace };
}

/**
 * Whether the consumer needs an agreement to read the port: not when the port is the consumer
 * product's own, nor when the consumer's team owns the port's product (a team needs no access to
 * what it provides).
 */
export function needsAgreement(port: { dataProductId: string; ownerTeamId: string | null }, consumer: Consumer): boolean {
  if (consumer.dataProductId !== null && port.dataProductId === consumer.dataProductId) return false;
  return consumer.teamId === null || port.ownerTeamId !== consumer.teamId;
}

/**
 * The reads of a run that need an agreement (docs/lineage.md): each input dataset that is an
 * output port's, unless that port belongs to the consumer product itself or to a product its own
 * team owns (a team needs no access to what it provides). Each port once per run.
 */
export function readsNeedingAccess(inputs: readonly Dataset[], consumer: Consumer, ports: PortIndex): PortRead[] {
  const reads = new Map<string, PortRead>();
  for (const input of inputs) {
    const dataset = { namespace: normalizeNamespace(input.namespace), name: input.name };
    for (const port of portsOf(ports, dataset)) {
      if (!needsAgreement(port, consumer)) continue;
      const key = JSON.stringify([port.dataProductId, port.outputPortId]);
      if (!reads.has(key)) reads.set(key, { port, dataset });
    }
  }
  return [...reads.values()];
}
