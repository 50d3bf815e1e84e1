import { normalizeNamespace, portPattern, portsHolding, type Dataset, type DatasetPattern, type PortLocation } from "./naming.js";

/** An output port with the team that owns its product, and the datasets it holds. */
export interface MappedPort extends PortLocation {
  ownerTeamId: string | null;
}

/** The data product a run works for, and its owner team: the consumer of what the run reads. */
export interface Consumer {
  dataProductId: string;
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

/** Every port of the products whose server names datasets, with its pattern (naming.ts). */
export function mapPorts(products: readonly CatalogProduct[]): Array<{ port: MappedPort; pattern: DatasetPattern }> {
  const mapped: Array<{ port: MappedPort; pattern: DatasetPattern }> = [];
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
  return mapped;
}

/**
 * The reads of a run that need an agreement (docs/lineage.md): each input dataset that is an
 * output port's, unless that port belongs to the consumer product itself or to a product its own
 * team owns (a team needs no access to what it provides). Each port once per run.
 */
export function readsNeedingAccess(inputs: readonly Dataset[], consumer: Consumer, ports: ReadonlyArray<{ port: MappedPort; pattern: DatasetPattern }>): PortRead[] {
  const reads = new Map<string, PortRead>();
  for (const input of inputs) {
    const dataset = { namespace: normalizeNamespace(input.namespace), name: input.name };
    for (const port of portsHolding(ports, dataset)) {
      if (port.dataProductId === consumer.dataProductId) continue;
      if (consumer.teamId !== null && port.ownerTeamId === consumer.teamId) continue;
      const key = JSON.stringify([port.dataProductId, port.outputPortId]);
      if (!reads.has(key)) reads.set(key, { port, dataset });
    }
  }
  return [...reads.values()];
}
