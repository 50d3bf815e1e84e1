/** Every event kind Steward emits (docs/product.md §6). The `type` of an envelope is `<prefix>.<kind>`. */

export const RESOURCE_EVENT_KINDS = [
  "TeamCreatedEvent",
  "TeamUpdatedEvent",
  "TeamDeletedEvent",
  "DataProductCreatedEvent",
  "DataProductUpdatedEvent",
  "DataProductDeletedEvent",
  "OutputPortCreatedEvent",
  "OutputPortUpdatedEvent",
  "OutputPortDeletedEvent",
  "DataContractCreatedEvent",
  "DataContractUpdatedEvent",
  "DataContractDeletedEvent",
  "AccessCreatedEvent",
  "AccessUpdatedEvent",
  "AccessDeletedEvent",
  "AccessRequestedEvent",
  "AccessApprovedEvent",
  "AccessRejectedEvent",
  "AccessActivatedEvent",
  "AccessDeactivatedEvent",
  "AccessCanceledEvent",
  "AssetCreatedEvent",
  "AssetUpdatedEvent",
  "AssetDeletedEvent",
  "SourceSystemCreatedEvent",
  "SourceSystemUpdatedEvent",
  "SourceSystemDeletedEvent",
  "DefinitionCreatedEvent",
  "DefinitionUpdatedEvent",
  "DefinitionDeletedEvent",
  "TagCreatedEvent",
  "TagUpdatedEvent",
  "TagDeletedEvent",
  "TestResultsCreatedEvent",
  "TestResultsDeletedEvent",
  "PolicyCreatedEvent",
  "PolicyUpdatedEvent",
  "PolicyDeletedEvent",
  "ClassificationSchemeCreatedEvent",
  "ClassificationSchemeUpdatedEvent",
  "ClassificationSchemeDeletedEvent",
  "CertificationCreatedEvent",
  "CertificationUpdatedEvent",
  "CertificationDeletedEvent",
  "AccessApprovalRecordedEvent",
  "AccessActivationRefusedEvent",
  "DataContractChangeProposedEvent",
] as const;

export const PROVISIONING_EVENT_KINDS = [
  "AccessProvisioningStartedEvent",
  "AccessProvisionedEvent",
  "AccessProvisioningFailedEvent",
  "AccessDeprovisioningStartedEvent",
  "AccessDeprovisionedEvent",
  "AccessDeprovisioningFailedEvent",
] as const;

/** What lineage reveals (docs/lineage.md): a run that read an output port's dataset without an active access. */
export const LINEAGE_EVENT_KINDS = ["AccessViolationDetectedEvent"] as const;

export const EVENT_KINDS = [...RESOURCE_EVENT_KINDS, ...PROVISIONING_EVENT_KINDS, ...LINEAGE_EVENT_KINDS] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Extra payload fields some kinds carry beside `id` and `timestamp`. */
export interface EventExtras {
  outputPortId?: string;
  status?: string;
  /** Provisioning events: the data platform the reporting connector named, when it named one. */
  platform?: string;
  /** DataContractUpdatedEvent: whether the change broke compatibility (docs/product.md §9). */
  breaking?: boolean;
  /** DataContractChangeProposedEvent: a breaking change proposed, not stored (docs/versions.md, "Telling consumers"). */
  proposal?: ProposedChange;
  /** The policies that denied, warned or required approvals for this change (docs/policies.md). */
  verdicts?: RecordedVerdict[];
  /** AccessApprovalRecordedEvent: the approvals given so far and how many the access still needs. */
  approvals?: { given: number; needed: number };
  /**
   * AccessViolationDetectedEvent: who read which port's dataset in which run, or used the port in
   * which span (docs/lineage.md); a usage span's consumer may be a team with no data product.
   */
  violation?: {
    consumerDataProductId: string | null;
    consumerTeamId: string | null;
    job?: { namespace: string; name: string };
    runId?: string;
    dataset?: { namespace: string; name: string };
    span?: { traceId: string; spanId: string; serviceName: string };
  };
}

/** What a proposed breaking change would break, bounded (`MAX_PROPOSAL_ITEMS` of each list, with the full counts). */
export interface ProposedChange {
  /** The proposed document's own version string, null when it has none. */
  version: string | null;
  /** SHA-256 of the proposed document with its members in sorted order: the same proposal within a day is told once. */
  hash: string;
  breakingChanges: Array<{ path: string; change: string; message: string }>;
  breakingCount: number;
  affectedAccesses: string[];
  affectedCount: number;
}

/** How many breaking changes and affected accesses one proposal event lists. */
export const MAX_PROPOSAL_ITEMS = 50;

/** One policy's verdict as events and histories carry it (docs/policies.md). */
export interface RecordedVerdict {
  policyId: string;
  name: string;
  effect: "deny" | "warn" | "require-approvals";
  gate: string;
  rule: string;
  message?: string;
  /** Why the rule could not be decided: it then counts as matched (fails closed). */
  error?: string;
  /** The input values the rule read, by path (`access.port.containsPii`). */
  read: Record<string, unknown>;
  /** require-approvals: how many distinct eligible approvers it asks for. */
  count?: number;
}

/** The kinds that tell an access's history. */
export const ACCESS_EVENT_KINDS: readonly EventKind[] = EVENT_KINDS.filter((k) => k.startsWith("Access") && !(LINEAGE_EVENT_KINDS as readonly string[]).includes(k));

export function isOutputPortKind(kind: EventKind): boolean {
  return kind.startsWith("OutputPort");
}

export function isProvisioningKind(kind: EventKind): boolean {
  return (PROVISIONING_EVENT_KINDS as readonly string[]).includes(kind);
}
