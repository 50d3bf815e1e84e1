import { Type } from "@sinclair/typebox";
import { CHANGE_RULES } from "../../../contract-changes/rules.js";

const Principal = {
  principal: Type.String({ description: "Who stored it: `api-key:<id>`, `user:<id>` or `system`." }),
  principalName: Type.String({ description: "The key's display name or the person's address, for people to read." }),
};

export const ContractVersionSummarySchema = Type.Object(
  {
    n: Type.Integer({ minimum: 1, description: "The version's number: 1 for the first document stored, counting up." }),
    version: Type.Union([Type.String(), Type.Null()], { description: "The document's own version string." }),
    createdAt: Type.String({ format: "date-time" }),
    ...Principal,
  },
  { title: "DataContractVersionSummary" },
);

export const VersionParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 256, pattern: "^[^/\\u0000]+$" }),
  n: Type.String({ pattern: "^[1-9][0-9]{0,8}$", description: "A version number, from 1." }),
});

export const ChangesQuery = Type.Object({
  from: Type.Optional(Type.String({ pattern: "^[1-9][0-9]{0,8}$", description: "Version number to compare from (default: the one before `to`)." })),
  to: Type.Optional(Type.String({ pattern: "^[1-9][0-9]{0,8}$", description: "Version number to compare to (default: the newest)." })),
});

export const ProposeQuery = Type.Object({
  notify: Type.Optional(
    Type.Union([Type.Literal("true"), Type.Literal("false")], {
      description:
        "With a principal that may update the contract: when the proposal breaks approved accesses, tell their consumers (once a day per proposed document). The answer's `steward-notified` header says how many accesses' consumers were told.",
    }),
  ),
});

export const PutContractQuery = Type.Object({
  allowBreaking: Type.Optional(
    Type.Union([Type.Literal("true"), Type.Literal("false")], {
      description: "With an organization key: store a breaking change although approved accesses depend on the contract.",
    }),
  ),
});

const ChangeSchema = Type.Object({
  path: Type.String({ description: "The model, then the field path: `orders.customer.address`, `orders.tags[]`." }),
  change: Type.Union(Object.keys(CHANGE_RULES).map((k) => Type.Literal(k))),
  breaking: Type.Boolean(),
  before: Type.Optional(Type.Unknown()),
  after: Type.Optional(Type.Unknown()),
  message: Type.String(),
  affectedAccesses: Type.Array(Type.String(), { description: "Ids of the approved accesses this change would break." }),
});

const AffectedAccessSchema = Type.Object({
  id: Type.String(),
  consumerTeamId: Type.Union([Type.String(), Type.Null()]),
  consumerDataProductId: Type.Union([Type.String(), Type.Null()]),
});

export const ChangeReportSchema = Type.Object(
  {
    from: Type.Union([Type.Integer(), Type.Literal("current")]),
    to: Type.Union([Type.Integer(), Type.Literal("proposed")]),
    breaking: Type.Boolean({ description: "Whether any change is breaking." }),
    changes: Type.Array(ChangeSchema, { description: "Breaking changes first; at most 1,000 and within the page byte limit (PAGE_LIMIT_BYTES)." }),
    omittedChanges: Type.Optional(Type.Integer({ minimum: 1, description: "How many further changes were found but not listed." })),
    affectedAccesses: Type.Array(AffectedAccessSchema, { description: "Approved accesses under this contract that have not ended (only when a change is breaking)." }),
  },
  { title: "DataContractChanges" },
);
