import type { FieldViolation } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import { compileRule } from "../../policies/rules/check.js";
import { variablesOf } from "../../policies/rules/gates.js";
import { searchText, type CatalogKind } from "../catalog/document-service.js";
import type { Policy, Rule } from "./shapes.js";
import { emitChangeEvent } from "../catalog/change-events.js";

/** Gates where an access waits: the only ones where a rule may require approvals. */
const APPROVAL_GATES = new Set(["access.request", "access.approve"]);

/** Why a policy's rule cannot be stored: it does not compile, or its effect does not fit its gates. */
export function ruleViolations(rule: Rule, field = "rule"): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const compiled = compileRule(rule.condition, variablesOf(rule.gates));
  if (!compiled.ok) {
    for (const e of compiled.errors) violations.push({ field: `${field}.condition`, message: `line ${e.line}, column ${e.column}: ${e.message}` });
  }
  if (rule.effect === "require-approvals") {
    if (rule.approvals === undefined) violations.push({ field: `${field}.approvals`, message: "is required for the effect require-approvals" });
    const other = rule.gates.filter((g) => !APPROVAL_GATES.has(g));
    if (other.length > 0) violations.push({ field: `${field}.gates`, message: `require-approvals applies only at access.request and access.approve, not at ${other.join(", ")}` });
  } else if (rule.approvals !== undefined) {
    violations.push({ field: `${field}.approvals`, message: "is only for the effect require-approvals" });
  }
  return violations;
}

export const policyKind: CatalogKind<Policy> = {
  kind: "policy",
  label: "Policy",
  columns: (p) => ({ title: p.name, ownerTeamId: null, status: p.status ?? "Draft", searchText: searchText(p.id, p.name, p.content) }),
  authorize: (p) => policy.governOrganization(p, "policies"),
  async validate(_ex, _organizationId, doc) {
    return doc.rule === undefined ? [] : ruleViolations(doc.rule);
  },
  emitChange: emitChangeEvent("Policy"),
};
