import type { EventKind } from "../../events/kinds.js";
import { isDeepStrictEqual } from "node:util";
import type { Access, ProvisioningStatus } from "./shapes.js";

/**
 * The access lifecycle of docs/product.md §5 as data a reader can scan: who may do what from which
 * stage, what a PUT may change for which side, and when a new request is approved at once. The
 * service applies these tables (through `src/policies/access.ts` for who may act); nothing else
 * decides them.
 */

/** The reference product's enum; cancelling is not a status but an end date. */
export const ACCESS_STATUSES = ["requested", "approved", "rejected"] as const;
export type AccessStatus = (typeof ACCESS_STATUSES)[number];

/** The two parties of an access. An organization-scoped principal is both. */
export type Side = "consumer" | "provider";

/**
 * Where an access stands at an instant, from its status, its end and whether it was canceled:
 * - `requested`: waiting for the provider's decision;
 * - `approved`: approved, not canceled, its end not reached (active when its start has come);
 * - `ended`: approved and never canceled, but its end date has passed; the provider may extend it;
 * - `canceled`: approved and canceled, its (cancel) end still ahead;
 * - `closed`: rejected, or canceled and its end reached. Nothing changes it any more.
 */
export const STAGES = ["requested", "approved", "ended", "canceled", "closed"] as const;
export type Stage = (typeof STAGES)[number];

const OPEN: Stage[] = ["requested", "approved", "ended", "canceled"];

export interface TimedState {
  status: AccessStatus;
  canceledAt: string | null;
  startAt: string | null;
  endAt: string | null;
}

export function stageOf(state: TimedState, now: string): Stage {
  if (state.status === "requested") return "requested";
  if (state.status === "rejected") return "closed";
  const ended = state.endAt !== null && state.endAt <= now;
  if (state.canceledAt !== null) return ended ? "closed" : "canceled";
  return ended ? "ended" : "approved";
}

/** Approved, and `now` within [startDate, endDate). */
export function isActive(state: TimedState, now: string): boolean {
  if (state.status !== "approved") return false;
  return (state.startAt === null || state.startAt <= now) && (state.endAt === null || now < state.endAt);
}

export type AccessAction = "approve" | "reject" | "cancel" | "change-agreement" | "change-terms" | "change-labels" | "change-dates" | "delete" | "report-provisioning";

export interface LifecycleRule {
  action: AccessAction;
  /** Which side may do it; either one suffices. */
  sides: Side[];
  /** The stages it is allowed from. */
  from: readonly Stage[];
  /** The rule in words, quoted in every refusal. */
  says: string;
}

/**
 * Who may do what, from where. An action with no row for the access's stage is a conflict (409);
 * one whose rows for that stage name only the other side is forbidden (403).
 */
export const RULES: readonly LifecycleRule[] = [
  { action: "approve", sides: ["provider"], from: ["requested"], says: "the provider side approves a requested access" },
  { action: "reject", sides: ["provider"], from: ["requested"], says: "the provider side rejects a requested access" },
  {
    action: "cancel",
    sides: ["consumer", "provider"],
    from: ["approved", "canceled"],
    says: "either side cancels an approved access whose end has not been reached; a request is withdrawn by deleting it",
  },
  { action: "change-agreement", sides: ["consumer"], from: ["requested"], says: "the consumer side changes purpose, individualAgreements and roles only while the access is requested" },
  {
    action: "change-agreement",
    sides: ["provider"],
    from: OPEN,
    says: "the provider side changes purpose, individualAgreements and roles of an open access",
  },
  {
    action: "change-terms",
    sides: ["consumer", "provider"],
    from: OPEN,
    says: "either side changes nextReassessmentDate (and any member not named elsewhere) of an open access",
  },
  {
    action: "change-labels",
    sides: ["consumer", "provider"],
    from: STAGES,
    says: "either side changes tags, links and custom of any access, a closed one too (connectors re-tag what they revoked)",
  },
  { action: "change-dates", sides: ["consumer"], from: ["requested"], says: "the consumer side changes the dates while the access is requested" },
  {
    action: "change-dates",
    sides: ["provider"],
    from: ["approved", "ended"],
    says: "only the provider side changes the dates of an approved access, and never those of a canceled one",
  },
  { action: "delete", sides: ["consumer", "provider"], from: STAGES, says: "either side deletes an access" },
  { action: "report-provisioning", sides: ["provider"], from: STAGES, says: "the provider side reports provisioning, in any stage" },
];

export type Verdict = { allowed: true } | { allowed: false; status: 403 | 409; detail: string };

const STAGE_WORDS: Record<Stage, string> = {
  requested: "requested",
  approved: "approved",
  ended: "approved and past its end date",
  canceled: "canceled (its end is still ahead)",
  closed: "closed (rejected, or canceled and past its end), and a closed access refuses every change but one to its tags, links and custom",
};

const ACTION_WORDS: Record<AccessAction, string> = {
  approve: "approve it",
  reject: "reject it",
  cancel: "cancel it",
  "change-agreement": "change what was agreed (purpose, individualAgreements, roles)",
  "change-terms": "change its terms",
  "change-labels": "change its tags, links or custom",
  "change-dates": "change its dates",
  delete: "delete it",
  "report-provisioning": "report its provisioning",
};

/** Applies RULES: may a principal holding `sides` do `action` to an access in `stage`? */
export function decide(action: AccessAction, stage: Stage, sides: ReadonlySet<Side>): Verdict {
  const rows = RULES.filter((r) => r.action === action);
  const rule = `rule: ${rows.map((r) => r.says).join("; ")}`;
  const what = ACTION_WORDS[action];
  if (sides.size === 0) return { allowed: false, status: 403, detail: `Only the consumer or the provider side of an access may ${what} (${rule}).` };
  const here = rows.filter((r) => r.from.includes(stage));
  if (here.length === 0) return { allowed: false, status: 409, detail: `The access is ${STAGE_WORDS[stage]}: nobody may ${what} now (${rule}).` };
  if (here.some((r) => r.sides.some((s) => sides.has(s)))) return { allowed: true };
  const others = [...new Set(here.flatMap((r) => r.sides))].join(" or ");
  return { allowed: false, status: 403, detail: `While the access is ${STAGE_WORDS[stage]}, only the ${others} side may ${what} (${rule}).` };
}

/**
 * What a PUT may change, by member of the access document. `provider` and `consumer` never
 * change (422); the dates are `change-dates`; what the provider approved is `change-agreement`;
 * the labels `change-labels`; every other member is `change-terms`.
 */
export const PUT_MEMBERS = {
  fixed: ["provider", "consumer"],
  dates: ["info.startDate", "info.endDate"],
  agreement: ["info.purpose", "info.individualAgreements", "roles"],
  labels: ["tags", "links", "custom"],
  /** Read-only: ignored in a body, set by Steward. */
  readOnly: ["info.status", "info.active", "info.canceledAt", "provider.teamId", "provider.dataContractId", "provider.dataContractVersion", "provisioning"],
} as const;

/**
 * Which kinds of member a PUT changes (lifecycle.ts PUT_MEMBERS). An empty list or map counts as
 * absent: generated clients send `roles: []`, `links: {}` for members they read as missing.
 */
export function changesOf(before: Access, after: Access): { datesChanged: boolean; agreementChanged: boolean; termsChanged: boolean; labelsChanged: boolean } {
  const datesChanged = (["startDate", "endDate"] as const).some((d) => (after.info[d] ?? null) !== (before.info[d] ?? null));
  const agreement = (d: Access) => [emptyAsAbsent(d.info.purpose), emptyAsAbsent(d.info.individualAgreements), emptyAsAbsent(d.roles)];
  const labels = (d: Access) => Object.fromEntries(PUT_MEMBERS.labels.map((m) => [m, emptyAsAbsent(d[m])]));
  const terms = (d: Access) => {
    const rest: Record<string, unknown> = { ...d, info: { ...d.info, startDate: undefined, endDate: undefined, purpose: undefined, individualAgreements: undefined }, roles: undefined };
    for (const m of PUT_MEMBERS.labels) delete rest[m];
    return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, emptyAsAbsent(v)]).filter(([, v]) => v !== undefined));
  };
  return {
    datesChanged,
    agreementChanged: !isDeepStrictEqual(agreement(before), agreement(after)),
    termsChanged: !isDeepStrictEqual(terms(before), terms(after)),
    labelsChanged: !isDeepStrictEqual(labels(before), labels(after)),
  };
}

function emptyAsAbsent(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value;
  if (typeof value === "object" && Object.keys(value).length === 0) return undefined;
  return value;
}

/** What a new request is judged by when it is created. */
export interface CreationFacts {
  autoApprove: boolean;
  consumerTeamId: string | null;
  providerTeamId: string | null;
}

/** A new request is approved at once when any of these holds. */
export const AUTO_APPROVAL: ReadonlyArray<{ when: string; holds: (c: CreationFacts) => boolean }> = [
  { when: "the output port is marked autoApprove", holds: (c) => c.autoApprove },
  { when: "the consumer's team is the provider's team", holds: (c) => c.consumerTeamId !== null && c.consumerTeamId === c.providerTeamId },
];

export function approvedOnCreation(facts: CreationFacts): boolean {
  return AUTO_APPROVAL.some((a) => a.holds(facts));
}

/** The events an action appends (before any Activated/Deactivated the clock then calls for). */
export const ACTION_EVENTS: Record<"create" | "approve" | "reject" | "cancel", EventKind[]> = {
  create: ["AccessCreatedEvent", "AccessRequestedEvent"],
  approve: ["AccessApprovedEvent"],
  reject: ["AccessRejectedEvent"],
  cancel: ["AccessCanceledEvent"],
};

export const PROVISIONING_TRANSITIONS: Record<string, { status: ProvisioningStatus; event: EventKind; at: string }> = {
  "provisioning-started": { status: "provisioning", event: "AccessProvisioningStartedEvent", at: "provisioningStartedAt" },
  "provisioning-succeeded": { status: "provisioned", event: "AccessProvisionedEvent", at: "provisionedAt" },
  "provisioning-failed": { status: "provisioning-failed", event: "AccessProvisioningFailedEvent", at: "provisioningFailedAt" },
  "deprovisioning-started": { status: "deprovisioning", event: "AccessDeprovisioningStartedEvent", at: "deprovisioningStartedAt" },
  "deprovisioning-succeeded": { status: "deprovisioned", event: "AccessDeprovisionedEvent", at: "deprovisionedAt" },
  "deprovisioning-failed": { status: "deprovisioning-failed", event: "AccessDeprovisioningFailedEvent", at: "deprovisioningFailedAt" },
};

export function provisioningTransitionFor(status: ProvisioningStatus) {
  return Object.values(PROVISIONING_TRANSITIONS).find((t) => t.status === status)!;
}
