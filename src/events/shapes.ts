import { Type, type TSchema } from "@sinclair/typebox";
import { EVENT_KINDS, isOutputPortKind, isProvisioningKind, MAX_PROPOSAL_ITEMS, type EventKind } from "./kinds.js";

const MEANING: Partial<Record<EventKind, string>> = {
  AccessRequestedEvent: "Access was requested.",
  AccessApprovedEvent: "A request for access was approved.",
  AccessRejectedEvent: "A request for access was rejected.",
  AccessActivatedEvent: "Access became active: its consumer should now be granted permissions.",
  AccessDeactivatedEvent: "Access ended: its consumer's permissions should now be revoked.",
  AccessCanceledEvent: "An access was canceled.",
  AccessActivationRefusedEvent: "The scheduler did not activate an access whose start date came: a policy at access.activate denied it (docs/policies.md). Recorded once; the access stays inactive until a later try passes.",
  AccessApprovalRecordedEvent: "One person's approval of an access that needs several was recorded; AccessApprovedEvent follows once enough were given.",
  TestResultsCreatedEvent: "A data contract's test run was published.",
  TestResultsDeletedEvent: "A data contract's test run was deleted.",
  DataContractChangeProposedEvent:
    "A breaking change to a data contract was proposed, not stored (POST /api/datacontracts/{id}/changes?notify=true), while approved accesses depend on the contract; the consumers of those accesses are told. Once per contract, proposed document and day.",
  AccessViolationDetectedEvent: "A lineage run read an output port's dataset for a consumer without an active access to that port (docs/lineage.md); once per job, port and day.",
};

/** The kinds whose `data` may carry policy verdicts. */
const POLICY_GATED: ReadonlySet<EventKind> = new Set([
  "DataContractCreatedEvent",
  "DataContractUpdatedEvent",
  "DataProductCreatedEvent",
  "DataProductUpdatedEvent",
  "AccessRequestedEvent",
  "AccessApprovalRecordedEvent",
  "AccessApprovedEvent",
  "AccessActivatedEvent",
  "AccessActivationRefusedEvent",
]);

/** The `data` payload of one event kind, published under `components/schemas/<EventKind>`. */
export function eventDataSchema(kind: EventKind): TSchema {
  const subject = kind.replace(/(Created|Updated|Deleted|ChangeProposed|ApprovalRecorded|ActivationRefused|Requested|Approved|Rejected|Activated|Deactivated|Canceled|ProvisioningStarted|Provisioned|ProvisioningFailed|DeprovisioningStarted|Deprovisioned|DeprovisioningFailed)Event$/, "");
  const resource =
    subject === "OutputPort" || kind === "AccessViolationDetectedEvent" ? "data product the output port belongs to" : subject === "TestResults" ? "test run" : subject.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return Type.Object(
    {
      id: Type.String({ description: `Id of the ${resource}.` }),
      timestamp: Type.String({ description: "When it happened: ISO 8601 UTC with nine fractional digits." }),
      ...(isOutputPortKind(kind) ? { outputPortId: Type.String({ description: "Id of the output port that changed." }) } : {}),
      ...(kind === "DataContractUpdatedEvent"
        ? { breaking: Type.Boolean({ description: "Whether the change is breaking for consumers (see GET /api/datacontracts/{id}/changes)." }) }
        : {}),
      ...(isProvisioningKind(kind)
        ? {
            status: Type.String({ description: "The access's provisioning status after this report." }),
            platform: Type.Optional(Type.String({ description: "The data platform of the grant, when the reporting connector named one." })),
          }
        : {}),
      ...(POLICY_GATED.has(kind)
        ? { verdicts: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { description: "The policies that denied, warned or required approvals for this change (docs/policies.md)." })) }
        : {}),
      ...(kind === "DataContractChangeProposedEvent"
        ? {
            proposal: Type.Object(
              {
                version: Type.Union([Type.String(), Type.Null()], { description: "The proposed document's own version string." }),
                hash: Type.String({ description: "SHA-256 (hex) of the proposed document with its members sorted; the same proposal is told once a day." }),
                breakingChanges: Type.Array(Type.Object({ path: Type.String(), change: Type.String(), message: Type.String() }), { maxItems: MAX_PROPOSAL_ITEMS, description: "The first breaking changes." }),
                breakingCount: Type.Integer({ minimum: 1, description: "How many breaking changes the proposal has in all." }),
                affectedAccesses: Type.Array(Type.String(), { maxItems: MAX_PROPOSAL_ITEMS, description: "Ids of the first approved, not ended accesses the proposal would break." }),
                affectedCount: Type.Integer({ minimum: 1, description: "How many such accesses there are in all (counted up to 1,000)." }),
              },
              { description: "What the proposed document would break, and for whom." },
            ),
          }
        : {}),
      ...(kind === "AccessApprovalRecordedEvent"
        ? { approvals: Type.Object({ given: Type.Integer(), needed: Type.Integer() }, { description: "Distinct eligible approvals given so far, and how many the access needs." }) }
        : {}),
      ...(kind === "AccessViolationDetectedEvent"
        ? {
            outputPortId: Type.String({ description: "Id of the output port whose dataset was read." }),
            violation: Type.Object(
              {
                consumerDataProductId: Type.String({ description: "The data product the run worked for." }),
                consumerTeamId: Type.Union([Type.String(), Type.Null()], { description: "That data product's owner team." }),
                job: Type.Object({ namespace: Type.String(), name: Type.String() }),
                runId: Type.String(),
                dataset: Type.Object({ namespace: Type.String(), name: Type.String() }),
              },
              { description: "Who read which dataset of the port, in which run." },
            ),
          }
        : {}),
      ...(kind === "TestResultsCreatedEvent"
        ? { status: Type.String({ description: "The run's overall result: passed, failed, warning, error or unknown." }) }
        : {}),
    },
    { title: kind, description: MEANING[kind] ?? `${kind.replace(/Event$/, "").replace(/([a-z])([A-Z])/g, "$1 $2")}.`, additionalProperties: true },
  );
}

export function eventComponentSchemas(): Record<string, TSchema> {
  return Object.fromEntries(EVENT_KINDS.map((kind) => [kind, eventDataSchema(kind)]));
}

export const CloudEventSchema = Type.Object(
  {
    specversion: Type.Literal("1.0"),
    id: Type.String({ format: "uuid", description: "Unique id; pass it as lastEventId to read what follows." }),
    type: Type.String({ description: "<EVENT_TYPE_PREFIX>.<EventKind>" }),
    source: Type.String({ format: "uri" }),
    time: Type.String({ format: "date-time" }),
    subject: Type.String({ description: "Id of the resource concerned; equals data.id." }),
    datacontenttype: Type.Literal("application/json"),
    dataschema: Type.String({ format: "uri" }),
    principal: Type.String({ description: "Who caused the event (CloudEvents extension): `api-key:<key id>`, `user:<user id>`, or `system` for the scheduler." }),
    data: Type.Object({ id: Type.String(), timestamp: Type.String() }, { additionalProperties: true }),
  },
  { title: "CloudEvent" },
);
