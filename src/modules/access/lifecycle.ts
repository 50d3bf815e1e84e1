import type { EventKind } from "../../events/kinds.js";
import type { ProvisioningStatus } from "./shapes.js";

/**
 * The access lifecycle (PRODUCT.md §5) as data: which action may leave which status, and what
 * "active" means at a given instant. The service applies it; nothing else decides it.
 */
export type AccessStatus = "requested" | "approved" | "rejected" | "canceled";
export type AccessAction = "approve" | "reject" | "cancel";

export const TRANSITIONS: Record<AccessAction, { from: AccessStatus[]; to: AccessStatus; event: EventKind }> = {
  approve: { from: ["requested"], to: "approved", event: "AccessApprovedEvent" },
  reject: { from: ["requested"], to: "rejected", event: "AccessRejectedEvent" },
  cancel: { from: ["requested", "approved"], to: "canceled", event: "AccessCanceledEvent" },
};

export interface TimedState {
  status: AccessStatus;
  /** Whether it was ever approved. */
  granted: boolean;
  startAt: string | null;
  endAt: string | null;
}

/** Approved (or canceled with its end still ahead), and `now` within [startDate, endDate). */
export function isActive(state: TimedState, now: string): boolean {
  if (!state.granted || (state.status !== "approved" && state.status !== "canceled")) return false;
  return (state.startAt === null || state.startAt <= now) && (state.endAt === null || now < state.endAt);
}

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
