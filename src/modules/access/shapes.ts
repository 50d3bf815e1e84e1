import { CloneType, Type, type Static, type TObject } from "@sinclair/typebox";
import { OpenObject, ResourceId, SafeText } from "../../platform/http/shapes.js";
import { Custom, Links, Tags } from "../teams/shapes.js";

const DateText = Type.String({ description: "ISO 8601 date-time, or a date meaning 00:00 UTC that day. Returned as sent." });

export const PROVISIONING_STATUSES = [
  "provisioning",
  "provisioned",
  "provisioning-failed",
  "deprovisioning",
  "deprovisioned",
  "deprovisioning-failed",
] as const;
export type ProvisioningStatus = (typeof PROVISIONING_STATUSES)[number];

export const ProvisioningSchema = OpenObject(
  {
    status: Type.Union(PROVISIONING_STATUSES.map((s) => Type.Literal(s))),
    platform: Type.Optional(Type.String({ description: "Where permissions were granted, e.g. postgres." })),
    executor: Type.Optional(Type.String({ description: "Who or what carried it out, e.g. a connector's name." })),
    reference: Type.Optional(Type.String({ description: "A handle to what was created, e.g. a grant or ticket id." })),
    diagnostics: Type.Optional(Type.Unknown({ description: "Details, especially on failure." })),
    provisioningStartedAt: Type.Optional(Type.String()),
    provisionedAt: Type.Optional(Type.String()),
    provisioningFailedAt: Type.Optional(Type.String()),
    deprovisioningStartedAt: Type.Optional(Type.String()),
    deprovisionedAt: Type.Optional(Type.String()),
    deprovisioningFailedAt: Type.Optional(Type.String()),
    updatedAt: Type.Optional(Type.String()),
  },
  { title: "Provisioning" },
);

export const ProvisioningReportSchema = OpenObject(
  {
    platform: Type.Optional(Type.String()),
    executor: Type.Optional(Type.String()),
    reference: Type.Optional(Type.String()),
    diagnostics: Type.Optional(Type.Unknown()),
  },
  { title: "ProvisioningReport" },
);

const ReadOnlyText = (description: string) => Type.Optional(Type.String({ description: `Read-only: ${description}` }));

export const AccessSchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    info: OpenObject({
      purpose: Type.String({ minLength: 1, description: "Why the consumer needs the data." }),
      status: Type.Optional(Type.String({ description: "Read-only: requested, approved or rejected. Cancelling sets the end date, not a status." })),
      active: Type.Optional(Type.Boolean({ description: "Read-only: approved, and now within [startDate, endDate)." })),
      startDate: Type.Optional(Type.Union([DateText, Type.Null()])),
      endDate: Type.Optional(Type.Union([DateText, Type.Null()])),
      individualAgreements: Type.Optional(Type.String({ description: "Anything agreed between provider and consumer for this access." })),
      nextReassessmentDate: Type.Optional(Type.Union([DateText, Type.Null()], { description: "When the agreement is to be looked at again." })),
      canceledAt: ReadOnlyText("when the access was canceled."),
    }),
    provider: OpenObject({
      dataProductId: SafeText({ minLength: 1 }),
      outputPortId: SafeText({ minLength: 1 }),
      teamId: ReadOnlyText("the data product's current owner team; it approves."),
      dataContractId: ReadOnlyText("the output port's data contract when the access was requested."),
      dataContractVersion: ReadOnlyText("that contract's version when the access was requested."),
    }),
    consumer: OpenObject(
      {
        dataProductId: Type.Optional(SafeText({ minLength: 1 })),
        teamId: Type.Optional(SafeText({ minLength: 1 })),
        userId: Type.Optional(SafeText({ minLength: 1 })),
      },
      {
        description:
          "A data product ({dataProductId}, with teamId its current owner: derived, and when sent it must match), a team ({teamId}) or a person ({userId}).",
      },
    ),
    roles: Type.Optional(Type.Array(Type.String(), { description: "Roles the consumer asks for, as the data contract defines them." })),
    provisioning: Type.Optional(Type.Union([ProvisioningSchema, Type.Null()], { description: "Read-only: set by provisioning reports." })),
    tags: Type.Optional(Tags),
    links: Type.Optional(Links),
    custom: Type.Optional(Custom),
  },
  { title: "Access" },
);

/** The read-only members of an access, by path: typed in answers, ignored in request bodies. */
const READ_ONLY: ReadonlyArray<readonly string[]> = [
  ["info", "status"],
  ["info", "active"],
  ["info", "canceledAt"],
  ["provider", "teamId"],
  ["provider", "dataContractId"],
  ["provider", "dataContractVersion"],
  ["provisioning"],
];

/**
 * An access as a client sends it: AccessSchema with each read-only member accepting any value. A
 * client may send back what it read, or anything else, there: it is ignored, never judged
 * (docs/product.md §4).
 */
export const AccessBodySchema: TObject = (() => {
  const body = CloneType(AccessSchema) as TObject;
  for (const path of READ_ONLY) {
    let parent: TObject = body;
    for (const name of path.slice(0, -1)) parent = parent.properties[name] as TObject;
    const name = path[path.length - 1]!;
    const description = (parent.properties[name]!.description as string | undefined) ?? "Read-only.";
    parent.properties[name] = Type.Optional(Type.Unknown({ description: `${description} Ignored in a request body.` }));
  }
  return { ...body, title: "AccessRequest" };
})();

const Comment = Type.String({ maxLength: 10_000, description: "Why: kept in the access's history with who wrote it." });

export const DecisionSchema = Type.Union([
  Type.Object({ comment: Type.Optional(Comment) }, { additionalProperties: false }),
  Type.Null(),
]);

export const CancelSchema = Type.Union([
  Type.Object(
    { endDate: Type.Optional(DateText), comment: Type.Optional(Comment) },
    { description: "Without an endDate the access ends now; never later than an end it already has.", additionalProperties: false },
  ),
  Type.Null(),
]);

export const HistoryEntrySchema = Type.Object(
  {
    id: Type.String({ description: "The event's id in the feed." }),
    kind: Type.String({ description: "The event kind, e.g. AccessApprovedEvent." }),
    time: Type.String({ format: "date-time" }),
    principal: Type.String({ description: "Who caused it: api-key:<id>, user:<id> or system." }),
    principalName: Type.String({ description: "That principal for people: the key's display name, the person's address, or Steward." }),
    comment: Type.Union([Type.String(), Type.Null()]),
    data: Type.Object({}, { additionalProperties: true, description: "The event's data, as in the feed." }),
  },
  { title: "AccessHistoryEntry" },
);

export type Comment = { comment?: string };
export type HistoryEntry = Static<typeof HistoryEntrySchema>;
export type Access = Static<typeof AccessSchema> & { id: string };
export type Provisioning = Static<typeof ProvisioningSchema>;
export type ProvisioningReport = Static<typeof ProvisioningReportSchema>;
