import { isDeepStrictEqual } from "node:util";
import type { Executor } from "../../platform/database/index.js";
import type { DocumentDefinition } from "../shared/document-service.js";
import { ownedDocument, ownerViolations } from "../shared/owned-documents.js";
import type { Emit } from "../../events/log.js";
import type { DataProduct, OutputPort } from "./shapes.js";

/** One OutputPort event per port that appeared, changed or disappeared. */
function emitPortChanges(emit: Emit, productId: string, before: OutputPort[], after: OutputPort[]): void {
  const old = new Map(before.map((p) => [p.id, p]));
  const now = new Map(after.map((p) => [p.id, p]));
  for (const port of after) {
    const previous = old.get(port.id);
    if (!previous) emit("OutputPortCreatedEvent", productId, { outputPortId: port.id });
    else if (!isDeepStrictEqual(previous, port)) emit("OutputPortUpdatedEvent", productId, { outputPortId: port.id });
  }
  for (const port of before) if (!now.has(port.id)) emit("OutputPortDeletedEvent", productId, { outputPortId: port.id });
}

export interface DataProductHooks {
  /** Throws 409 when an active access uses the product, or one of `removedPortIds`. */
  checkNotInUse(ex: Executor, organizationId: string, productId: string, removedPortIds?: string[]): Promise<void>;
}

export function dataProductDefinition(hooks: DataProductHooks): DocumentDefinition<DataProduct> {
  return {
    kind: "dataproduct",
    label: "Data product",
    ...ownedDocument<DataProduct>("data product", (doc) => ({ title: doc.info.title, owner: doc.info.owner, ownerField: "info.owner", status: doc.info.status, description: doc.info.description })),
    async validate(ex, organizationId, product) {
      const violations = await ownerViolations(ex, organizationId, { owner: product.info.owner, ownerField: "info.owner", title: product.info.title });
      const seen = new Set<string>();
      (product.outputPorts ?? []).forEach((port, i) => {
        if (seen.has(port.id)) violations.push({ field: `outputPorts[${i}].id`, message: `duplicate output port id '${port.id}'` });
        seen.add(port.id);
      });
      return violations;
    },
    async checkUpdatable(ex, organizationId, before, after) {
      const kept = new Set((after.outputPorts ?? []).map((p) => p.id));
      const removed = (before.outputPorts ?? []).map((p) => p.id).filter((id) => !kept.has(id));
      if (removed.length > 0) await hooks.checkNotInUse(ex, organizationId, before.id, removed);
    },
    checkDeletable: (ex, organizationId, product) => hooks.checkNotInUse(ex, organizationId, product.id),
    emitChange(emit, id, before, after) {
      emit(before === undefined ? "DataProductCreatedEvent" : after === undefined ? "DataProductDeletedEvent" : "DataProductUpdatedEvent", id);
      emitPortChanges(emit, id, before?.outputPorts ?? [], after?.outputPorts ?? []);
    },
  };
}
