import type { Executor } from "../../platform/database/index.js";
import type { Emit } from "../../events/log.js";
import type { EventExtras } from "../../events/kinds.js";
import { needsAgreement, type Consumer } from "./reads.js";
import { lineageRepository, type ActiveAccessRow } from "./repository.js";

/** A read of an output port by a consumer, as lineage (a run's input) or usage (a span) saw it. */
export interface SeenRead {
  port: { dataProductId: string; outputPortId: string; ownerTeamId: string | null };
  consumer: Consumer;
  /** Where the read was seen: a run's job and dataset, or a span (docs/lineage.md). */
  seen: Omit<NonNullable<EventExtras["violation"]>, "consumerDataProductId" | "consumerTeamId">;
}

/** Whether the access lets this consumer — the data product, or its team as a team consumer — read the port. */
function covers(access: ActiveAccessRow, read: SeenRead): boolean {
  if (access.provider_data_product_id !== read.port.dataProductId || access.provider_output_port_id !== read.port.outputPortId) return false;
  if (access.consumer_type === "dataProduct") return read.consumer.dataProductId !== null && access.consumer_data_product_id === read.consumer.dataProductId;
  return access.consumer_type === "team" && read.consumer.teamId !== null && access.consumer_team_id === read.consumer.teamId;
}

/**
 * The one path by which reads without an agreement become AccessViolationDetectedEvent
 * (docs/lineage.md, "Reads without an agreement"), for a whole request at once: each read that
 * needs an agreement (`reads.ts`), for which the consumer holds no active access (one lookup for
 * all), and that `record` keeps as new (once per day, by the caller's key; it answers row by row),
 * raises the event on the providing data product. Answers how many did.
 */
export async function raiseWithoutAgreement<R extends SeenRead>(ex: Executor, emit: Emit, organizationId: string, reads: readonly R[], record: (reads: R[]) => Promise<boolean[]>): Promise<number> {
  const needing = reads.filter((read) => needsAgreement(read.port, read.consumer));
  if (needing.length === 0) return 0;
  const ports = new Map(needing.map((read) => [JSON.stringify([read.port.dataProductId, read.port.outputPortId]), read.port]));
  const accesses = await lineageRepository.activeAccessesTo(ex, organizationId, [...ports.values()]);
  const without = needing.filter((read) => !accesses.some((access) => covers(access, read)));
  if (without.length === 0) return 0;
  const fresh = await record(without);
  const raised = without.filter((_, i) => fresh[i]);
  for (const read of raised) {
    emit("AccessViolationDetectedEvent", read.port.dataProductId, {
      outputPortId: read.port.outputPortId,
      violation: { consumerDataProductId: read.consumer.dataProductId, consumerTeamId: read.consumer.teamId, ...read.seen },
    });
  }
  return raised.length;
}
