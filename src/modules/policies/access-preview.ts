import { Type, type Static } from "@sinclair/typebox";
import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { notFound } from "../../platform/errors.js";
import type { AccessGates } from "../access/policy-gates.js";
import { accessRepository } from "../access/repository.js";

const VerdictSchema = Type.Object(
  {
    policyId: Type.String(),
    name: Type.String(),
    effect: Type.String(),
    gate: Type.String(),
    rule: Type.String(),
    message: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    read: Type.Record(Type.String(), Type.Unknown()),
    count: Type.Optional(Type.Integer()),
  },
  { additionalProperties: true },
);

export const AccessPolicyViewSchema = Type.Object(
  {
    verdicts: Type.Array(VerdictSchema, { description: "Each Accepted policy that would deny, warn or require approvals at access.request, access.approve or access.activate now." }),
    requirements: Type.Array(
      Type.Object({
        source: Type.String({ description: "The policy's id, or contract-role:<role>:<level>." }),
        name: Type.String(),
        count: Type.Integer(),
        given: Type.Integer({ description: "Distinct eligible approvals given so far." }),
        eligibleNow: Type.Boolean({ description: "Whether the caller may give one of them now." }),
        after: Type.Optional(Type.String({ description: "The requirement that must be complete before approvals count here (a contract role's second level)." })),
      }),
    ),
    approvedBy: Type.Array(Type.String(), { description: "The principals whose approvals are recorded." }),
  },
  { title: "AccessPolicyView" },
);

export type AccessPolicyView = Static<typeof AccessPolicyViewSchema>;

/** What the policies say about one access now, for the person about to decide (docs/policies.md). */
export class AccessPolicyPreview {
  constructor(
    private readonly database: Database,
    private readonly gates: AccessGates,
    private readonly clock: Clock,
  ) {}

  async view(p: Principal, id: string): Promise<AccessPolicyView> {
    const record = await accessRepository.get(this.database.db, p.organizationId, id);
    if (!record) throw notFound("Access", id);
    return this.gates.preview(this.database.db, p, record, this.clock.now().toISOString());
  }
}
