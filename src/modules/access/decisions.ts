import type { EventExtras, EventKind } from "../../events/kinds.js";
import { ACTION_EVENTS, isActive, provisioningTransitionFor, type PROVISIONING_TRANSITIONS } from "./lifecycle.js";
import type { AccessRecord } from "./repository.js";
import type { Access, Provisioning, ProvisioningReport } from "./shapes.js";

/**
 * The access lifecycle's changes of state (docs/product.md §5) as values: each decision takes the
 * access as stored, what was asked and the instant, and answers the access as it is to be stored
 * with the events that say what happened, oldest first. Nothing here reads or writes the database
 * or checks who asks: the service loads the access, asks `src/policies/access.ts` whether the
 * principal may act, decides here, and stores what it is given.
 */

/** One event of a decision; its subject is always the access. */
export interface AccessEvent {
  kind: EventKind;
  extras?: EventExtras;
  comment?: string;
}

export interface Decision {
  record: AccessRecord;
  events: AccessEvent[];
}

type Transition = (typeof PROVISIONING_TRANSITIONS)[string];

/**
 * Brings `active` up to date with `now`: an access becomes active when it is approved and its
 * window [startDate, endDate) holds `now`, and inactive when that stops holding.
 */
export function settle(decision: Decision, now: string, activation?: EventExtras): Decision {
  const active = isActive(decision.record, now);
  if (active === decision.record.active) return decision;
  const event: AccessEvent = active ? { kind: "AccessActivatedEvent", ...(activation ? { extras: activation } : {}) } : { kind: "AccessDeactivatedEvent" };
  return { record: { ...decision.record, active }, events: [...decision.events, event] };
}

/** Every decision that changes an access stamps it and settles its activity. */
function changed(record: AccessRecord, events: AccessEvent[], now: string, activation?: EventExtras): Decision {
  return settle({ record: { ...record, updatedAt: now }, events }, now, activation);
}

/**
 * A new request: created and requested, and approved at once when `approvedAtOnce` (lifecycle.ts
 * AUTO_APPROVAL, unless its policies want several approvals). `requested` carries the policy
 * verdicts of the request gate.
 */
export function create(record: AccessRecord, command: { approvedAtOnce: boolean; requested?: EventExtras }, now: string): Decision {
  const events: AccessEvent[] = ACTION_EVENTS.create.map((kind) => (kind === "AccessRequestedEvent" && command.requested ? { kind, extras: command.requested } : { kind }));
  if (!command.approvedAtOnce) return settle({ record, events }, now);
  return settle({ record: { ...record, status: "approved" }, events: [...events, ...ACTION_EVENTS.approve.map((kind) => ({ kind }))] }, now);
}

/** The provider side approves a requested access; it activates at once when its window is open. */
export function approve(record: AccessRecord, command: { comment?: string; extras?: EventExtras }, now: string): Decision {
  return changed({ ...record, status: "approved" }, [event("AccessApprovedEvent", command.extras, command.comment)], now);
}

/** The provider side rejects a requested access, which closes it. */
export function reject(record: AccessRecord, command: { comment?: string }, now: string): Decision {
  return changed({ ...record, status: "rejected" }, [event("AccessRejectedEvent", undefined, command.comment)], now);
}

/**
 * Either side cancels an approved access: it stays approved and ends at `endAt` (the instant
 * `endDate` names) or now, never later than an end it already has.
 */
export function cancel(record: AccessRecord, command: { endAt: string | null; endDate?: string; comment?: string }, now: string): Decision {
  const at = command.endAt ?? now;
  const shortened = record.endAt === null || at < record.endAt;
  const next: AccessRecord = {
    ...record,
    ...(shortened ? { endAt: at, doc: { ...record.doc, info: { ...record.doc.info, endDate: command.endDate ?? now } } } : {}),
    canceledAt: record.canceledAt ?? now,
  };
  return changed(next, [event("AccessCanceledEvent", undefined, command.comment)], now);
}

/**
 * The consuming person left the organization: an approved access not yet canceled ends now.
 * Answers undefined for any other access, which stays as it is.
 */
export function endForPerson(record: AccessRecord, now: string): Decision | undefined {
  if (record.canceledAt !== null || record.status !== "approved") return undefined;
  return cancel(record, { endAt: null, comment: "The consuming person was deprovisioned." }, now);
}

/** A PUT's new document and the dates read from it; the rules it needs were checked before. */
/**
 * A changed document. New dates are judged anew, so an activation a policy refused before is tried
 * at once; `activation` carries the access.activate gate's verdicts when the change opens the window.
 */
export function update(
  record: AccessRecord,
  command: { doc: Access; startAt: string | null; endAt: string | null; activation?: EventExtras },
  now: string,
): Decision {
  const datesChanged = command.startAt !== record.startAt || command.endAt !== record.endAt;
  const next: AccessRecord = { ...record, doc: command.doc, startAt: command.startAt, endAt: command.endAt, ...(datesChanged ? { activationRetryAt: null } : {}) };
  return changed(next, [{ kind: "AccessUpdatedEvent" }], now, command.activation);
}

/** Deleting an access ends its activity first. */
export function remove(record: AccessRecord): AccessEvent[] {
  return [...(record.active ? [{ kind: "AccessDeactivatedEvent" as const }] : []), { kind: "AccessDeletedEvent" }];
}

/** The clock moved: an access whose start came or whose end passed (de)activates; otherwise nothing happens. */
export function refresh(record: AccessRecord, now: string, gate?: ActivationVerdict): Decision {
  if (gate?.refused) {
    // Recorded once; tried again later, as policies and the catalog may change meanwhile (docs/policies.md).
    const events: AccessEvent[] = record.activationRetryAt == null ? [{ kind: "AccessActivationRefusedEvent", ...(gate.extras ? { extras: gate.extras } : {}) }] : [];
    return { record: { ...record, activationRetryAt: new Date(Date.parse(now) + ACTIVATION_RETRY_MS).toISOString() }, events };
  }
  const settled = settle({ record: { ...record, activationRetryAt: null }, events: [] }, now, gate?.extras);
  return settled.events.length === 0 ? { record, events: [] } : { ...settled, record: { ...settled.record, updatedAt: now } };
}

/** How long the scheduler waits before trying again an activation a policy refused (docs/policies.md). */
export const ACTIVATION_RETRY_MS = 5 * 60_000;

/** What the access.activate gate said of an access whose window opened. */
export interface ActivationVerdict {
  refused: boolean;
  extras: EventExtras | undefined;
}

/** A connector reports a provisioning transition: the members it gives, the new status and when it was reached. */
export function reportProvisioning(record: AccessRecord, command: { transition: Transition; report: ProvisioningReport }, now: string): Decision {
  const { transition, report } = command;
  const given = Object.fromEntries(Object.entries(report).filter(([, v]) => v !== undefined));
  const provisioning = { ...record.provisioning, ...given, status: transition.status, [transition.at]: now, updatedAt: now } as Provisioning;
  return changed({ ...record, provisioning }, [{ kind: transition.event, extras: provisioningExtras(provisioning) }], now);
}

/** A connector replaces the provisioning record; an event tells of it only when its status changed. */
export function putProvisioning(record: AccessRecord, command: { provisioning: Provisioning }, now: string): Decision {
  const provisioning = { ...command.provisioning, updatedAt: now };
  const events: AccessEvent[] = record.provisioning?.status === provisioning.status ? [] : [{ kind: provisioningTransitionFor(provisioning.status).event, extras: provisioningExtras(provisioning) }];
  return changed({ ...record, provisioning }, events, now);
}

/** A provisioning event's payload beyond id and timestamp: the new status, and the platform once one was reported. */
function provisioningExtras(provisioning: Provisioning): EventExtras {
  const { status, platform } = provisioning;
  return typeof platform === "string" ? { status, platform } : { status };
}

function event(kind: EventKind, extras: EventExtras | undefined, comment: string | undefined): AccessEvent {
  return { kind, ...(extras !== undefined ? { extras } : {}), ...(comment !== undefined ? { comment } : {}) };
}
