import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { contractFormatOf } from "../../contract-formats/index.js";
import { productFormatOf } from "../../product-formats/index.js";
import type { DataContract } from "../datacontracts/shapes.js";
import type { DataProduct } from "../dataproducts/shapes.js";
import { checkDocumentSize, type DocumentLimits } from "../catalog/document-limits.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import { PUBLISHED } from "./document-gate.js";
import { gatedAt, type PolicyEnforcement } from "./enforcement.js";
import { policyRepository } from "./repository.js";
import type { DraftEvaluation, DraftEvaluationRequest } from "./shapes.js";

/** The gates a draft document can be tried at, with the variable each gives it as and its kind. */
const DOCUMENT_GATES = {
  "contract.publish": { variable: "contract", kind: "datacontract", statusOf: (d: Record<string, unknown>) => contractFormatOf(d as DataContract).facts(d as DataContract).status },
  "product.publish": { variable: "product", kind: "dataproduct", statusOf: (d: Record<string, unknown>) => productFormatOf(d as DataProduct).facts(d as DataProduct).status },
} as const;

/**
 * What each Accepted policy at a document gate says about a draft, before it is saved
 * (docs/policies.md, "Trying a rule"): the same input the gate would give, nothing written.
 */
export async function evaluateDraft(database: Database, enforcement: PolicyEnforcement, clock: Clock, limits: DocumentLimits, p: Principal, body: DraftEvaluationRequest): Promise<DraftEvaluation> {
  checkDocumentSize("Draft document", JSON.stringify(body.document), limits);
  const o = DOCUMENT_GATES[body.gate];
  const document = body.document as Record<string, unknown>;
  const id = body.id ?? (typeof document.id === "string" ? document.id : undefined);
  const previous = id === undefined ? undefined : await resourceRepository.get<Record<string, unknown>>(database.db, p.organizationId, o.kind, id);
  const policies = gatedAt(await policyRepository.accepted(database.db, p.organizationId), body.gate);
  const input = { [o.variable]: document, previous: previous?.doc ?? {}, now: clock.now().toISOString() };
  const [results] = await enforcement.run(policies, [input]);
  const byId = new Map((results ?? []).map((r) => [r.id, r]));
  return {
    gate: body.gate,
    applies: PUBLISHED.has((statusOf(o.statusOf, document) ?? "").toLowerCase()),
    policies: policies.map((policy) => {
      const result = byId.get(policy.id);
      const matched = result?.matched ?? true;
      return {
        policyId: policy.id,
        name: policy.name,
        effect: policy.rule.effect,
        outcome: !matched ? "pass" : policy.rule.effect === "warn" ? "warn" : "deny",
        rule: policy.rule.condition,
        ...(policy.rule.message !== undefined ? { message: policy.rule.message } : {}),
        ...(result?.error !== undefined ? { error: result.error } : {}),
        read: result?.read ?? {},
      };
    }),
  };
}

/** A draft's status; a document of no known format has none (its save would be refused anyway). */
function statusOf(read: (d: Record<string, unknown>) => string | undefined, document: Record<string, unknown>): string | undefined {
  try {
    return read(document);
  } catch {
    return undefined;
  }
}
