import { isDeepStrictEqual } from "node:util";
import type { Executor } from "../../platform/database/index.js";
import type { FieldViolation } from "../../platform/errors.js";
import { productFormatOf } from "../../product-formats/index.js";
import type { CatalogKind } from "../catalog/document-service.js";
import { ownedDocument, ownerViolations } from "../catalog/owned-documents.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import type { Emit } from "../../events/log.js";
import { outputPorts, type OutputPortView } from "../../product-formats/ports.js";
import type { DataProduct } from "./shapes.js";
import { changeEvent } from "../catalog/change-events.js";

/** One OutputPort event per port that appeared, changed or disappeared. */
function emitPortChanges(emit: Emit, productId: string, before: OutputPortView[], after: OutputPortView[]): void {
  const old = new Map(before.map((p) => [p.id, p]));
  const now = new Map(after.map((p) => [p.id, p]));
  for (const port of after) {
    const previous = old.get(port.id);
    if (!previous) emit("OutputPortCreatedEvent", productId, { outputPortId: port.id });
    else if (!isDeepStrictEqual(previous.raw, port.raw)) emit("OutputPortUpdatedEvent", productId, { outputPortId: port.id });
  }
  for (const port of before) if (!now.has(port.id)) emit("OutputPortDeletedEvent", productId, { outputPortId: port.id });
}

export interface DataProductHooks {
  /** Throws 409 when an active access uses the product, or one of the ports named `removedPortIds`. */
  checkNotInUse(ex: Executor, organizationId: string, productId: string, removedPortIds?: string[]): Promise<void>;
}

export interface DataProductLimits {
  /** Output ports one data product may have (docs/product.md §1). */
  maxOutputPorts: number;
}

export const productFacts = (product: DataProduct) => productFormatOf(product).facts(product);

/** Ports must be unique, and each contract a port names must exist (docs/product.md §4). */
async function portViolations(ex: Executor, organizationId: string, product: DataProduct): Promise<FieldViolation[]> {
  const violations: FieldViolation[] = [];
  const ports = outputPorts(product);
  const seen = new Set<string>();
  for (const port of ports) {
    if (seen.has(port.id)) violations.push({ field: `${port.path}.id`, message: `duplicate output port id '${port.id}'` });
    seen.add(port.id);
  }
  const referenced = [...new Set(ports.flatMap((p) => (p.dataContractId === null ? [] : [p.dataContractId])))];
  const existing = await resourceRepository.existingIds(ex, organizationId, "datacontract", referenced);
  for (const port of ports) {
    if (port.dataContractId !== null && !existing.has(port.dataContractId)) {
      violations.push({ field: port.contractField, message: `no data contract '${port.dataContractId}' exists in this organization` });
    }
  }
  return violations;
}

export function dataProductKind(hooks: DataProductHooks, limits: DataProductLimits): CatalogKind<DataProduct> {
  return {
    kind: "dataproduct",
    label: "Data product",
    ...ownedDocument<DataProduct>("data product", productFacts),
    async validate(ex, organizationId, product) {
      const count = Array.isArray(product.outputPorts) ? product.outputPorts.length : 0;
      // Checked first and alone: nothing else is worth reading in a document past the limit.
      if (count > limits.maxOutputPorts) {
        return [{ field: "outputPorts", message: `has ${count} output ports; a data product may have at most ${limits.maxOutputPorts} (MAX_OUTPUT_PORTS)` }];
      }
      const format = productFormatOf(product);
      const violations = format.validate(product);
      const facts = format.facts(product);
      const found = [violations];
      if (facts.owner !== undefined || !violations.some((v) => v.field === facts.ownerField)) found.push(await ownerViolations(ex, organizationId, facts));
      // One per port at worst: joined with concat, as push(...list) fails past about 100,000 arguments.
      found.push(await portViolations(ex, organizationId, product));
      return ([] as FieldViolation[]).concat(...found);
    },
    async checkUpdatable(ex, organizationId, before, after) {
      // Accesses hold a port by its id, also those that named an ODPS port by its bare name.
      const kept = new Set(outputPorts(after).map((p) => p.id));
      const removed = outputPorts(before)
        .filter((p) => !kept.has(p.id))
        .map((p) => p.id);
      if (removed.length > 0) await hooks.checkNotInUse(ex, organizationId, before.id, removed);
    },
    checkDeletable: (ex, organizationId, product) => hooks.checkNotInUse(ex, organizationId, product.id),
    emitChange(emit, id, before, after) {
      emit(changeEvent("DataProduct", before, after), id);
      emitPortChanges(emit, id, before ? outputPorts(before) : [], after ? outputPorts(after) : []);
    },
  };
}
