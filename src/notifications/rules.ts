/**
 * What is notified, and to whom (docs/notifications.md), as data. Each rule turns one event kind
 * into one notification kind with its audience; everything else in the log notifies no one.
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
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** `provider`/`consumer`: the access's teams; `contractConsumers`: consumer teams of a contract's approved accesses. */
export type Audience = "provider" | "consumer" | "contractConsumers";

export interface Rule {
  kind: NotificationKind;
  audience: readonly Audience[];
  /** Only when the event's data says so (a contract update that broke compatibility). */
  when?: (data: Record<string, unknown>) => boolean;
}

export const RULES: Readonly<Record<string, Rule>> = {
  AccessRequestedEvent: { kind: "accessRequested", audience: ["provider"] },
  AccessApprovedEvent: { kind: "accessApproved", audience: ["consumer"] },
  AccessRejectedEvent: { kind: "accessRejected", audience: ["consumer"] },
  AccessCanceledEvent: { kind: "accessCanceled", audience: ["consumer"] },
  AccessProvisioningFailedEvent: { kind: "provisioningFailed", audience: ["provider", "consumer"] },
  DataContractUpdatedEvent: { kind: "breakingChange", audience: ["contractConsumers"], when: (data) => data.breaking === true },
};

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

/** The rule an event falls under, or undefined when it notifies no one. */
export function ruleFor(eventKind: string, data: Record<string, unknown>): Rule | undefined {
  const rule = RULES[eventKind];
  if (!rule) return undefined;
  return rule.when === undefined || rule.when(data) ? rule : undefined;
}

/** What the deriver knows about the event's resource when it derives (read from the database). */
export interface Facts {
  providerTeamId?: string | null;
  consumerTeamId?: string | null;
  contractConsumerTeamIds?: readonly string[];
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
    else for (const team of facts.contractConsumerTeamIds ?? []) add(team);
  }
  return teams;
}
