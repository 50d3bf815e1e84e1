import type { Executor } from "../../platform/database/index.js";
import type { Emit } from "../../events/log.js";
import type { EventExtras } from "../../events/kinds.js";
import { needsAgreement, type Consumer } from "./reads.js";
import { lineageRepository } from "./repository.js";

/** A read of an output port by a consumer, as lineage (a run's input) or usage (a span) saw it. */
export interface SeenRead {
  port: { dataProductId: string; outputPortId: string; ownerTeamId: string | null };
  consumer: Consumer;
  /** Where the read was seen: a run's job and dataset, or a span (docs/lineage.md). */
  seen: Omit<NonNullable<EventExtras["violation"]>, "consumerDataProductId" | "consumerTeamId">;
}

/**
 * The one path by which a read without an agreement becomes AccessViolationDetectedEvent
 * (docs/lineage.md, "Reads without an agreement"): a read that needs an agreement (`reads.ts`),
 * for which the consumer holds no active access, and that `record` keeps as new (once per day, by
 * the caller's key), raises the event on the providing data product. Answers whether it did.
 */
export async function raiseIfWithoutAgreement(ex: Executor, emit: Emit, organizationId: string, read: SeenRead, record: () => Promise<boolean>): Promise<boolean> {
  if (!needsAgreement(read.port, read.consumer)) return false;
  if (await lineageRepository.hasActiveAccess(ex, organizationId, read.port, read.consumer)) return false;
  if (!(await record())) return false;
  emit("AccessViolationDetectedEvent", read.port.dataProductId, {
    outputPortId: read.port.outputPortId,
    violation: { consumerDataProductId: read.consumer.dataProductId, consumerTeamId: read.consumer.teamId, ...read.seen },
  });
  return true;
}
