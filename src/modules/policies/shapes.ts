import { Type, type Static } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";
import { EFFECTS, GATES, MAX_RULE_LENGTH } from "../../policies/rules/gates.js";

export const POLICY_STATUSES = ["Draft", "Accepted", "Rejected", "Deprecated"] as const;

/** Who may give the approvals a `require-approvals` rule asks for (docs/policies.md). */
export const EligibleSchema = Type.Object(
  {
    providerTeam: Type.Optional(Type.Boolean({ description: "Principals acting for the provider product's owner team. True when `teams` is absent." })),
    teams: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 50, description: "Principals acting for any of these teams (by id)." })),
    organization: Type.Optional(Type.Boolean({ description: "Organization-scoped principals (organization keys and owners). True when absent." })),
    teamRoles: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: 20,
        description: "Only people whose team role, in the team they approve for (the provider team or one of `teams`), is one of these (any letter case). Team keys hold no team role.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const RuleSchema = Type.Object(
  {
    condition: Type.String({ minLength: 1, maxLength: MAX_RULE_LENGTH, description: "A CEL expression over the gate's input; the effect applies when it is true (docs/policies.md)." }),
    effect: Type.Union(EFFECTS.map((e) => Type.Literal(e)), { description: "`deny` refuses, `warn` lets it pass and records the warning, `require-approvals` holds an access until enough eligible people approved." }),
    gates: Type.Array(Type.Union(GATES.map((g) => Type.Literal(g))), { minItems: 1, maxItems: GATES.length, uniqueItems: true, description: "Where the rule is evaluated." }),
    message: Type.Optional(Type.String({ maxLength: 1000, description: "What a refusal or warning tells people." })),
    approvals: Type.Optional(
      Type.Object(
        {
          count: Type.Integer({ minimum: 1, maximum: 20, description: "Distinct eligible approvers needed." }),
          eligible: Type.Optional(EligibleSchema),
        },
        { additionalProperties: false, description: "For `require-approvals`: how many, and who." },
      ),
    ),
  },
  { additionalProperties: false, description: "A machine rule beside the policy's prose: evaluated at its gates while the policy is Accepted." },
);

export const PolicySchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    name: Type.String({ minLength: 1, maxLength: 500, description: "The display name of the policy." }),
    status: Type.Optional(Type.Union(POLICY_STATUSES.map((s) => Type.Literal(s)), { description: "Only Accepted policies are enforced. Draft when absent." })),
    content: Type.Optional(Type.String({ description: "The body of the policy, formatted as Markdown." })),
    rule: Type.Optional(RuleSchema),
  },
  { title: "Policy", description: "A rule of play of the organization: prose, and optionally an executable rule (docs/policies.md)." },
);

export type Rule = Static<typeof RuleSchema>;
export type Policy = Static<typeof PolicySchema> & { id: string };

export const EvaluateSchema = Type.Union([
  Type.Object({ rule: Type.Optional(RuleSchema) }, { additionalProperties: false, description: "A draft rule to try instead of the policy's own." }),
  Type.Null(),
]);

const FindingSchema = Type.Object({
  gate: Type.Union(GATES.map((g) => Type.Literal(g))),
  kind: Type.Union([Type.Literal("datacontract"), Type.Literal("dataproduct"), Type.Literal("access")]),
  id: Type.String(),
  outcome: Type.Union([Type.Literal("deny"), Type.Literal("warn"), Type.Literal("hold")]),
  read: Type.Record(Type.String(), Type.Unknown(), { description: "The input values the rule read, by path; null when absent." }),
  error: Type.Optional(Type.String({ description: "Why the rule could not be decided here; it then counts as matched." })),
});

export const DryRunSchema = Type.Object(
  {
    policyId: Type.String(),
    rule: RuleSchema,
    evaluated: Type.Object({ datacontracts: Type.Integer(), dataproducts: Type.Integer(), accesses: Type.Integer() }),
    counts: Type.Object({ deny: Type.Integer(), warn: Type.Integer(), hold: Type.Integer() }),
    findings: Type.Array(FindingSchema, { description: "What the rule would deny, warn about or hold; at most 500, `counts` covers all." }),
    truncated: Type.Boolean({ description: "More documents or accesses existed than one dry run reads (10,000 of each)." }),
  },
  { title: "PolicyDryRun" },
);

/** `POST /api/policies/evaluate`: a draft document tried at a document gate (docs/policies.md). */
export const DraftEvaluationRequestSchema = Type.Object(
  {
    gate: Type.Union([Type.Literal("contract.publish"), Type.Literal("product.publish")]),
    document: Type.Object({}, { additionalProperties: true, description: "The data contract or data product as it would be sent." }),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "The id it would be saved under; the stored document of that id is `previous`. The document's own `id` when absent." })),
  },
  { additionalProperties: false },
);

export const DraftEvaluationSchema = Type.Object(
  {
    gate: Type.String(),
    applies: Type.Boolean({ description: "Whether saving the draft passes the gate: its status is `active`. When false, the policies are shown as they would decide once it is." }),
    policies: Type.Array(
      Type.Object({
        policyId: Type.String(),
        name: Type.String(),
        effect: Type.String(),
        outcome: Type.Union([Type.Literal("deny"), Type.Literal("warn"), Type.Literal("pass")], { description: "What the policy says about the draft: `pass` when its condition does not hold." }),
        rule: Type.String(),
        message: Type.Optional(Type.String()),
        error: Type.Optional(Type.String()),
        read: Type.Record(Type.String(), Type.Unknown()),
      }),
      { description: "Every Accepted policy with a rule at the gate." },
    ),
  },
  { title: "PolicyDraftEvaluation" },
);

export type DraftEvaluation = Static<typeof DraftEvaluationSchema>;
export type DraftEvaluationRequest = Static<typeof DraftEvaluationRequestSchema>;
