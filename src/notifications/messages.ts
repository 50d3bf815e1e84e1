import type { NotificationKind } from "./rules.js";

export type ResourceType = "access" | "dataContract" | "dataProduct";

/**
 * One notification as every target formats it (src/notifications/formats.ts): what happened, to
 * which resource, who acted, their comment and a link into the web app. It is derived once from
 * the event and stored with each delivery; it never carries a key or a secret.
 */
export interface Message {
  kind: NotificationKind;
  title: string;
  text: string;
  resource: { type: ResourceType; id: string };
  /** Who caused the event, by name (a person's address, a key's display name, or Steward). */
  actor: string;
  comment: string | null;
  link: string;
  time: string;
  eventId: string;
  /** The event as the feed renders it (a CloudEvent), for `webhook` channels. */
  event: Record<string, unknown>;
}

export interface MessageInput {
  kind: NotificationKind;
  subject: string;
  actor: string;
  comment: string | null;
  appUrl: string;
  time: string;
  eventId: string;
  event: Record<string, unknown>;
  /** The date a reminder is about. */
  date?: string;
  /** What the notification is about, when not what its kind implies (a warning about a contract). */
  resource?: ResourceType;
  /** The event kind, for the verb of kinds several events cause. */
  eventKind?: string;
  /** A sentence after the first: the policies that held or warned, the approvals still needed, what a run read. */
  detail?: string;
  /** An access's provider and consumer, as far as known, for the sentence. */
  access?: { providerDataProductId: string; providerOutputPortId: string; consumer: string };
}

const HEADLINES: Record<NotificationKind, string> = {
  accessRequested: "Access requested",
  accessApproved: "Access approved",
  accessRejected: "Access rejected",
  accessCanceled: "Access canceled",
  provisioningFailed: "Provisioning failed",
  breakingChange: "Breaking change stored",
  accessEndingSoon: "Access ending soon",
  reassessmentDue: "Access due for reassessment",
  approvalsNeeded: "Approvals needed",
  policyWarning: "Policy warning",
  accessViolation: "Read without an access",
  breakingChangeProposed: "Breaking change proposed",
};

const VERBS: Record<NotificationKind, string> = {
  accessRequested: "requested",
  accessApproved: "approved",
  accessRejected: "rejected",
  accessCanceled: "canceled",
  provisioningFailed: "reported that provisioning failed for",
  breakingChange: "stored a breaking change to",
  accessEndingSoon: "",
  reassessmentDue: "",
  approvalsNeeded: "requested",
  policyWarning: "changed",
  accessViolation: "reported a read without an active access of",
  breakingChangeProposed: "proposed a breaking change to",
};

/** The verb of kinds that several events cause, by the event. */
function verbOf(kind: NotificationKind, eventKind: string | undefined): string {
  if (kind !== "approvalsNeeded" && kind !== "policyWarning") return VERBS[kind];
  if (eventKind === "AccessRequestedEvent") return "requested";
  if (eventKind === "AccessApprovalRecordedEvent" || eventKind === "AccessApprovedEvent") return "approved";
  if (eventKind?.endsWith("CreatedEvent")) return "created";
  return VERBS[kind];
}

const PATHS: Record<ResourceType, string> = { access: "/access/", dataContract: "/datacontracts/", dataProduct: "/dataproducts/" };

/**
 * The sentence after the first, from the event's data: the policies that held the access or
 * warned, the approvals given so far, or what a lineage run read (docs/notifications.md).
 */
export function detailOf(kind: NotificationKind, data: Record<string, unknown>): string | undefined {
  const verdicts = (Array.isArray(data.verdicts) ? data.verdicts : []) as Array<{ name?: unknown; effect?: unknown; message?: unknown; count?: unknown }>;
  const named = (effect: string) =>
    verdicts
      .filter((v) => v && v.effect === effect)
      .map((v) => `'${String(v.name)}'${typeof v.message === "string" ? `: ${v.message}` : ""}${effect === "require-approvals" && typeof v.count === "number" ? ` (${v.count} approval${v.count === 1 ? "" : "s"})` : ""}`)
      .join("; ");
  if (kind === "policyWarning") return `The policy warned: ${named("warn")}.`;
  if (kind === "approvalsNeeded") {
    const approvals = data.approvals as { given?: number; needed?: number } | undefined;
    if (approvals && typeof approvals.given === "number" && typeof approvals.needed === "number") return `${approvals.given} of ${approvals.needed} approvals given; it stays requested until the rest are.`;
    return `It stays requested until enough eligible people approved: ${named("require-approvals")}.`;
  }
  if (kind === "breakingChangeProposed") return proposalDetail(data.proposal as Proposal | undefined);
  if (kind === "accessViolation") {
    const v = data.violation as Violation | undefined;
    if (!v) return undefined;
    const port = `output port '${String(data.outputPortId)}'`;
    const consumer = v.consumerDataProductId ? `data product '${v.consumerDataProductId}'` : `team '${v.consumerTeamId}'`;
    // A lineage run reads a dataset; a usage span names the service that used the port (docs/lineage.md).
    if (v.span) return `Service '${v.span.serviceName ?? "unknown"}' used ${port} for ${consumer} (trace '${v.span.traceId}', span '${v.span.spanId}').`;
    return `Run '${v.runId}' of job '${v.job?.namespace}/${v.job?.name}' read dataset '${v.dataset?.namespace}/${v.dataset?.name}' of ${port} for ${consumer}.`;
  }
  return undefined;
}

/** How many of a proposal's breaking changes a message names; the event lists more, the link shows all. */
const NAMED_CHANGES = 5;

type Proposal = { version?: string | null; breakingChanges?: Array<{ path?: string; message?: string }>; breakingCount?: number };

/** The proposed version and its first breaking changes, in words; nothing is stored yet. */
function proposalDetail(proposal: Proposal | undefined): string | undefined {
  if (!proposal) return undefined;
  const changes = proposal.breakingChanges ?? [];
  const count = proposal.breakingCount ?? changes.length;
  const named = changes.slice(0, NAMED_CHANGES).map((c) => `${c.path}: ${c.message}`).join("; ");
  const more = count > Math.min(changes.length, NAMED_CHANGES) ? `; and ${count - Math.min(changes.length, NAMED_CHANGES)} more` : "";
  const version = proposal.version ? ` as version ${proposal.version}` : "";
  return `Proposed${version}, not stored yet: ${count} breaking change${count === 1 ? "" : "s"} (${named}${more}).`;
}

/** What `AccessViolationDetectedEvent` says of a read (lineage) or a use (usage traces). */
type Violation = {
  consumerDataProductId?: string | null;
  consumerTeamId?: string;
  job?: { namespace?: string; name?: string };
  runId?: string;
  dataset?: { namespace?: string; name?: string };
  span?: { traceId?: string; spanId?: string; serviceName?: string | null };
};

/** The message of one notification, as a pure function of what the event and the database said. */
export function composeMessage(input: MessageInput): Message {
  const type: ResourceType = input.resource ?? (input.kind === "breakingChange" || input.kind === "breakingChangeProposed" ? "dataContract" : "access");
  const what =
    type === "dataContract"
      ? `data contract '${input.subject}'`
      : type === "dataProduct"
        ? `data product '${input.subject}'`
        : input.access
          ? `access '${input.subject}' to output port '${input.access.providerOutputPortId}' of data product '${input.access.providerDataProductId}' for ${input.access.consumer}`
          : `access '${input.subject}'`;
  const consequence = input.kind === "breakingChange" || input.kind === "breakingChangeProposed" ? " Approved accesses of yours depend on it." : "";
  const detail = input.detail ? ` ${input.detail}` : "";
  return {
    kind: input.kind,
    title: `${HEADLINES[input.kind]}: ${type === "access" && input.access ? input.access.providerDataProductId : input.subject}`,
    text:
      input.kind === "accessEndingSoon"
        ? `The ${what} ends on ${input.date}.`
        : input.kind === "reassessmentDue"
          ? `The ${what} is due for reassessment (${input.date}).`
          : `${input.actor} ${verbOf(input.kind, input.eventKind)} ${what}.${consequence}${detail}`,
    resource: { type, id: input.subject },
    actor: input.actor,
    comment: input.comment,
    link: `${input.appUrl}${PATHS[type]}${encodeURIComponent(input.subject)}`,
    time: input.time,
    eventId: input.eventId,
    event: input.event,
  };
}
