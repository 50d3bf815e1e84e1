/**
 * What is notified, and to whom (docs/notifications.md), as data. Each rule turns one event kind
 * into one notification kind with its audience; one event may fall under several rules (an access
 * request that a policy warned about), and everything else in the log notifies no one.
 */

export const NOTIFICATION_KINDS = [
  "accessRequested",
  "accessApproved",
  "accessRejected",
  "accessCanceled",
  "provisioningFailed",
  "breakingChange",
  "accessEndingSoon",
  "reassessmentDue",
  "approvalsNeeded",
  "policyWarning",
  "accessViolation",
  "breakingChangeProposed",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * `provider`/`consumer`: the access's teams (and the person, for an access a person consumes);
 * `contractConsumers`: the consumers of a contract's approved accesses that had not ended when it
 *   changed (a canceled one counts until its end), whom the contract's gate protects;
 * `approvers`: the provider team and the teams a require-approvals policy names as eligible;
 * `writer`: the team a change was made for (docs/notifications.md, "What is notified").
 */
export type Audience = "provider" | "consumer" | "contractConsumers" | "approvers" | "writer";

export interface Rule {
  kind: NotificationKind;
  audience: readonly Audience[];
  /** Only when the event's data says so (a contract update that broke compatibility). */
  when?: (data: Record<string, unknown>) => boolean;
}

/** The recorded policy verdicts of an event (docs/policies.md), as far as they have an effect. */
function effects(data: Record<string, unknown>): string[] {
  const verdicts = Array.isArray(data.verdicts) ? (data.verdicts as unknown[]) : [];
  return verdicts.map((v) => (v !== null && typeof v === "object" ? (v as { effect?: unknown }).effect : undefined)).filter((e): e is string => typeof e === "string");
}

/** A require-approvals policy holds the access. */
export const holds = (data: Record<string, unknown>): boolean => effects(data).includes("require-approvals");
/** A policy let the change pass with a warning. */
export const warns = (data: Record<string, unknown>): boolean => effects(data).includes("warn");
/** An approval was recorded and more are still needed. */
const stillNeeded = (data: Record<string, unknown>): boolean => {
  const a = data.approvals as { given?: unknown; needed?: unknown } | undefined;
  return typeof a?.given === "number" && typeof a.needed === "number" && a.given < a.needed;
};

const warning: Rule = { kind: "policyWarning", audience: ["writer"], when: warns };

export const RULES: Readonly<Record<string, readonly Rule[]>> = {
  AccessRequestedEvent: [
    { kind: "approvalsNeeded", audience: ["approvers"], when: holds },
    { kind: "accessRequested", audience: ["provider"], when: (data) => !holds(data) },
    warning,
  ],
  AccessApprovalRecordedEvent: [{ kind: "approvalsNeeded", audience: ["approvers"], when: stillNeeded }, warning],
  AccessApprovedEvent: [{ kind: "accessApproved", audience: ["consumer"] }, warning],
  AccessRejectedEvent: [{ kind: "accessRejected", audience: ["consumer"] }],
  AccessCanceledEvent: [{ kind: "accessCanceled", audience: ["consumer"] }],
  AccessProvisioningFailedEvent: [{ kind: "provisioningFailed", audience: ["provider", "consumer"] }],
  AccessViolationDetectedEvent: [{ kind: "accessViolation", audience: ["provider"] }],
  DataContractCreatedEvent: [warning],
  DataContractUpdatedEvent: [{ kind: "breakingChange", audience: ["contractConsumers"], when: (data) => data.breaking === true }, warning],
  DataContractChangeProposedEvent: [{ kind: "breakingChangeProposed", audience: ["contractConsumers"] }],
  DataProductCreatedEvent: [warning],
  DataProductUpdatedEvent: [warning],
};

/**
 * Whose change an event with a warning was: an access request is the consumer's, a decision on an
 * access the provider's, a document's change its owner team's.
 */
export function writerSide(eventKind: string): "consumer" | "provider" | "owner" {
  if (eventKind === "AccessRequestedEvent") return "consumer";
  if (eventKind.startsWith("Access")) return "provider";
  return "owner";
}

/** What an event's notification is about, for its link: the subject's resource type. */
export function resourceOf(eventKind: string): "access" | "dataContract" | "dataProduct" {
  if (eventKind === "AccessViolationDetectedEvent" || eventKind.startsWith("DataProduct")) return "dataProduct";
  if (eventKind.startsWith("DataContract")) return "dataContract";
  return "access";
}

/**
 * Reminders come from the calendar, not from an event: an approved access whose end date is at
 * most `ENDING_SOON_DAYS` away, or whose `nextReassessmentDate` has come. Both sides hear of it,
 * once per date.
 */
export const REMINDERS: Readonly<Record<"accessEndingSoon" | "reassessmentDue", Rule>> = {
  accessEndingSoon: { kind: "accessEndingSoon", audience: ["provider", "consumer"] },
  reassessmentDue: { kind: "reassessmentDue", audience: ["provider", "consumer"] },
};

export const ENDING_SOON_DAYS = 7;

/** Given an access's dates and today, the reminders due: each with the date it is about. */
export function remindersDue(
  access: { endAt: string | null; nextReassessmentDate: string | null },
  now: Date,
): Array<{ kind: "accessEndingSoon" | "reassessmentDue"; date: string }> {
  const due: Array<{ kind: "accessEndingSoon" | "reassessmentDue"; date: string }> = [];
  if (access.endAt !== null) {
    const end = Date.parse(access.endAt);
    if (end > now.getTime() && end - now.getTime() <= ENDING_SOON_DAYS * 24 * 60 * 60 * 1000) due.push({ kind: "accessEndingSoon", date: access.endAt.slice(0, 10) });
  }
  const today = now.toISOString().slice(0, 10);
  if (access.nextReassessmentDate !== null && /^\d{4}-\d{2}-\d{2}/.test(access.nextReassessmentDate) && access.nextReassessmentDate.slice(0, 10) <= today) {
    due.push({ kind: "reassessmentDue", date: access.nextReassessmentDate.slice(0, 10) });
  }
  return due;
}

/** The rules an event falls under: none when it notifies no one. */
export function rulesFor(eventKind: string, data: Record<string, unknown>): Rule[] {
  return (RULES[eventKind] ?? []).filter((rule) => rule.when === undefined || rule.when(data));
}

/** What the deriver knows about the event's resource when it derives (read from the database). */
export interface Facts {
  providerTeamId?: string | null;
  consumerTeamId?: string | null;
  /** The person an access is consumed by (consumer {userId}), when they are a member. */
  consumerUserId?: string | null;
  contractConsumerTeamIds?: readonly string[];
  /** People who consume a contract's approved, not ended, accesses themselves. */
  contractConsumerUserIds?: readonly string[];
  /** Teams a require-approvals policy names as eligible, beside the provider team. */
  approverTeamIds?: readonly string[];
  /** The team a change was made for (see `writerSide`). */
  writerTeamId?: string | null;
}

/** The teams an event's notification goes to: each once, in the order the audience names them. */
export function teamsFor(rule: Rule, facts: Facts): string[] {
  const teams: string[] = [];
  const add = (team: string | null | undefined) => {
    if (team && !teams.includes(team)) teams.push(team);
  };
  for (const audience of rule.audience) {
    if (audience === "provider") add(facts.providerTeamId);
    else if (audience === "consumer") add(facts.consumerTeamId);
    else if (audience === "writer") add(facts.writerTeamId);
    else if (audience === "approvers") {
      add(facts.providerTeamId);
      for (const team of facts.approverTeamIds ?? []) add(team);
    } else for (const team of facts.contractConsumerTeamIds ?? []) add(team);
  }
  return teams;
}

/** The people an event's notification goes to themselves, beside the teams' members: consumers who are persons. */
export function peopleFor(rule: Rule, facts: Facts): string[] {
  const people = new Set<string>();
  for (const audience of rule.audience) {
    if (audience === "consumer" && facts.consumerUserId) people.add(facts.consumerUserId);
    if (audience === "contractConsumers") for (const user of facts.contractConsumerUserIds ?? []) people.add(user);
  }
  return [...people];
}
