/**
 * What the PostgreSQL and MariaDB/MySQL connectors do alike around an access event
 * (docs/consumers.md): one piece of work at a time, the event dispatched by kind with failures
 * logged and the connector going on, the consumer's role by the fixed scheme, the access's
 * privileges plan, and provisioning reports. Only granting and revoking differ by engine.
 */
import { FeedConsumerError, type CloudEvent, type ConsumerLogger, type EventContext, type StewardClient } from "../consumer/index.js";
import { accessRoles, contractInput, portInput } from "../privileges/inputs.js";
import { planPrivileges, type PrivilegesPlan } from "../privileges/plan.js";
import { productOwner, type AccessView, type PortView, type ProductView } from "./postgres/catalog.js";
import { logDetail } from "./postgres/diagnostics.js";
import { Refusal, roleFor } from "./postgres/trust.js";

export type Report = (transition: string, body?: Record<string, unknown>) => Promise<void>;

/** A resource of Steward, or `undefined` when it no longer exists. */
export async function read<T>(api: Pick<StewardClient, "get">, path: string, signal: AbortSignal): Promise<T | undefined> {
  try {
    return await api.get<T>(path, { signal });
  } catch (error) {
    if (error instanceof FeedConsumerError && error.status === 404) return undefined;
    throw error;
  }
}

/** Runs one piece of work after the one before it, so a reconciliation never sees an event half-applied. */
export class Serial {
  private queue: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }
}

/**
 * Hands an access event to `activate` or `deactivate`. A failure is logged and the connector goes
 * on with the next event, except when Steward itself did not answer (the event is handed over
 * again when the consumer retries) or the work was stopped.
 */
export async function dispatchAccessEvent(
  event: CloudEvent,
  context: EventContext,
  steps: { activate(accessId: string, context: EventContext): Promise<void>; deactivate(accessId: string, context: EventContext): Promise<void> },
  logger: ConsumerLogger,
): Promise<void> {
  const accessId = event.data?.id;
  if (typeof accessId !== "string") return;
  try {
    if (context.kind === "AccessActivatedEvent") await steps.activate(accessId, context);
    else if (context.kind === "AccessDeactivatedEvent") await steps.deactivate(accessId, context);
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (error instanceof FeedConsumerError && error.retryable) throw error;
    logger.error?.("the event could not be handled; going on with the next one", { eventId: event.id, accessId, error: logDetail(error) });
  }
}

/** The consumer's role, by the connector's scheme only: a team's, a consuming product's owner team's, or a user's. */
export async function consumerRole(access: AccessView, api: Pick<StewardClient, "get">, signal: AbortSignal): Promise<string> {
  const { dataProductId, teamId, userId } = access.consumer;
  if (typeof teamId === "string" && teamId !== "") return roleFor({ team: teamId });
  if (typeof dataProductId === "string" && dataProductId !== "") {
    const consumer = await read<ProductView>(api, `/api/dataproducts/${encodeURIComponent(dataProductId)}`, signal);
    const owner = consumer && productOwner(consumer);
    if (!owner) throw new Refusal(`The consuming data product '${dataProductId}' no longer exists or names no owner team.`);
    return roleFor({ team: owner });
  }
  if (typeof userId === "string" && userId !== "") return roleFor({ user: userId });
  throw new Refusal("The access names no consumer.");
}

/**
 * The access's privileges plan, made by the same planner the server answers with, from the port
 * just read and the current text of the contract the access was requested under.
 */
export async function accessPlan(access: AccessView, port: PortView, api: Pick<StewardClient, "get">, signal: AbortSignal): Promise<PrivilegesPlan> {
  const contractId = access.provider.dataContractId;
  const contract = typeof contractId === "string" ? await read<Record<string, unknown>>(api, `/api/datacontracts/${encodeURIComponent(contractId)}`, signal) : undefined;
  let described: ReturnType<typeof contractInput> | null = null;
  if (contract && typeof contractId === "string") {
    try {
      described = contractInput(contractId, contract);
    } catch {
      throw new Refusal(`The data contract '${contractId}' could not be read into columns, so no column-level grant could be planned.`);
    }
  }
  return planPrivileges({ accessId: access.id, roles: accessRoles(access as unknown as Record<string, unknown>), port: portInput(port as Record<string, unknown>), contract: described });
}

/** Reports a provisioning step; an answer Steward will not change its mind about (4xx) is logged, not fatal. */
export function provisioningReporter(api: StewardClient, accessId: string, signal: AbortSignal, by: { platform: string; executor: string }, logger: ConsumerLogger): Report {
  return async (transition, body = {}) => {
    try {
      await api.post(`/api/access/${encodeURIComponent(accessId)}/provisioning/${transition}`, { platform: by.platform, executor: by.executor, ...body }, { signal });
    } catch (error) {
      if (signal.aborted || !(error instanceof FeedConsumerError) || error.retryable) throw error;
      logger.warn?.(`reporting ${transition} was refused`, { accessId, error: error.message });
    }
  };
}
