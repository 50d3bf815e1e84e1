import type { Emit } from "../../events/log.js";
import type { Principal } from "../../platform/auth.js";
import type { DialectName, Executor } from "../../platform/database/index.js";
import { notFound } from "../../platform/errors.js";
import { accessPolicy } from "../../policies/access.js";
import { syncActive } from "./activity.js";
import { present } from "./documents.js";
import { isActive, stageOf } from "./lifecycle.js";
import type { AccessGates } from "./policy-gates.js";
import { accessRepository } from "./repository.js";
import type { Access } from "./shapes.js";

/**
 * Approving an access under the organization's policies (docs/policies.md), inside the change's
 * transaction: who may approve follows from the approvals the access needs; each approval of an
 * access that needs several is recorded, and the last one approves it, after the access.approve
 * and access.activate gates.
 */
export async function approveUnderPolicies(gates: AccessGates, trx: Executor, emit: Emit, p: Principal, id: string, comment: string | undefined, now: string, dialect: DialectName): Promise<Access> {
  const record = await accessRepository.get(trx, p.organizationId, id, { lock: dialect });
  if (!record) throw notFound("Access", id);
  const stage = stageOf(record, now);
  // Who may approve depends on the policies: a team they name may approve without being a party.
  const plan = await gates.requirements(trx, p, record, now);
  if (plan.requirements.length === 0) accessPolicy.act(p, record, "approve", stage);
  else accessPolicy.approveAsEligible(p, record, stage, await gates.standing(trx, p, record, plan.requirements));
  const decision = await gates.approve(trx, p, record, plan, comment, now);
  if (decision.kind === "recorded") {
    if (decision.duplicate) return present(record);
    emit("AccessApprovalRecordedEvent", id, decision.extras, comment);
    if (!decision.met) {
      record.updatedAt = now;
      await accessRepository.update(trx, record);
      return present(record);
    }
  }
  record.status = "approved";
  const activation = isActive(record, now) ? await gates.activate(trx, p, { ...plan.input, access: present(record) }) : undefined;
  const verdicts = [...(decision.extras?.verdicts ?? []), ...(activation?.verdicts ?? [])];
  emit("AccessApprovedEvent", id, verdicts.length > 0 ? { verdicts } : undefined, decision.kind === "plain" ? comment : undefined);
  syncActive(record, emit, now);
  record.updatedAt = now;
  await accessRepository.update(trx, record);
  return present(record);
}
