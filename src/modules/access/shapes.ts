import { Type, type Static } from "@sinclair/typebox";
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

export const AccessSchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    info: OpenObject({
      purpose: Type.String({ minLength: 1, description: "Why the consumer needs the data." }),
      status: Type.Optional(Type.String({ description: "Read-only: requested, approved, rejected or canceled." })),
      active: Type.Optional(Type.Boolean({ description: "Read-only: whether the consumer should have access right now." })),
      startDate: Type.Optional(Type.Union([DateText, Type.Null()])),
      endDate: Type.Optional(Type.Union([DateText, Type.Null()])),
    }),
    provider: OpenObject({
      dataProductId: SafeText({ minLength: 1 }),
      outputPortId: SafeText({ minLength: 1 }),
      teamId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Read-only: the owner of the data product." })),
      dataContractId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Read-only: the output port's data contract." })),
    }),
    consumer: OpenObject(
      {
        dataProductId: Type.Optional(SafeText({ minLength: 1 })),
        teamId: Type.Optional(SafeText({ minLength: 1 })),
        userId: Type.Optional(SafeText({ minLength: 1 })),
      },
      { description: "Exactly one of dataProductId, teamId or userId." },
    ),
    provisioning: Type.Optional(Type.Union([ProvisioningSchema, Type.Null()], { description: "Read-only: set by provisioning reports." })),
    tags: Type.Optional(Tags),
    links: Type.Optional(Links),
    custom: Type.Optional(Custom),
  },
  { title: "Access" },
);

export const CancelSchema = Type.Union([
  Type.Object({ endDate: Type.Optional(DateText) }, { description: "Without an endDate the access ends now.", additionalProperties: false }),
  Type.Null(),
]);

export type Access = Static<typeof AccessSchema> & { id: string };
export type Provisioning = Static<typeof ProvisioningSchema>;
export type ProvisioningReport = Static<typeof ProvisioningReportSchema>;
