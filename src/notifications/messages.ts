import type { NotificationKind } from "./rules.js";

/**
 * One notification as every target formats it (src/notifications/formats.ts): what happened, to
 * which resource, who acted, their comment and a link into the web app. It is derived once from
 * the event and stored with each delivery; it never carries a key or a secret.
 */
export interface Message {
  kind: NotificationKind;
  title: string;
  text: string;
  resource: { type: "access" | "dataContract"; id: string };
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
};

/** The message of one notification, as a pure function of what the event and the database said. */
export function composeMessage(input: MessageInput): Message {
  const isContract = input.kind === "breakingChange";
  const path = isContract ? `/datacontracts/${encodeURIComponent(input.subject)}` : `/access/${encodeURIComponent(input.subject)}`;
  const what = isContract
    ? `data contract '${input.subject}'`
    : input.access
      ? `access '${input.subject}' to output port '${input.access.providerOutputPortId}' of data product '${input.access.providerDataProductId}' for ${input.access.consumer}`
      : `access '${input.subject}'`;
  const consequence = isContract ? " Approved accesses of your team depend on it." : "";
  return {
    kind: input.kind,
    title: `${HEADLINES[input.kind]}: ${isContract ? input.subject : input.access ? input.access.providerDataProductId : input.subject}`,
    text:
      input.kind === "accessEndingSoon"
        ? `The ${what} ends on ${input.date}.`
        : input.kind === "reassessmentDue"
          ? `The ${what} is due for reassessment (${input.date}).`
          : `${input.actor} ${VERBS[input.kind]} ${what}.${consequence}`,
    resource: { type: isContract ? "dataContract" : "access", id: input.subject },
    actor: input.actor,
    comment: input.comment,
    link: `${input.appUrl}${path}`,
    time: input.time,
    eventId: input.eventId,
    event: input.event,
  };
}
