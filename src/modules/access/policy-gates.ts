import type { EventExtras, RecordedVerdict } from "../../events/kinds.js";
import { principalOf, type Actor } from "../../events/log.js";
import type { Principal } from "../../platform/auth.js";
import type { DialectName, Executor } from "../../platform/database/index.js";
import { chunked } from "../../platform/database/chunks.js";
import type { Gate } from "../../policies/rules/gates.js";
import { approvalState, contractRoleRequirements, eligibleFor, ineligibility, type ApprovalRequirement, type Approver } from "../../policies/rules/approvals.js";
import type { Judgement } from "../../policies/rules/verdicts.js";
import { findOutputPort } from "../../product-formats/ports.js";
import { refusal, type PolicyEnforcement } from "../policies/enforcement.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import { approvalRepository } from "./approvals.js";
import { present } from "./documents.js";
import type { AccessRecord } from "./repository.js";

/**
 * The access gates of docs/policies.md: what policies say when an access is requested, approved
 * and activated, and the approvals an access needs from several people. The service calls these
 * inside the change's transaction; the decisions are the pure functions of `policies/rules/verdicts.ts`.
 */

export function approverOf(p: Principal): Approver {
  return { principal: principalOf(p), scope: p.scope, teamIds: p.teamIds, ...(p.teamRoles ? { teamRoles: p.teamRoles } : {}) };
}

/** Who acts, as a rule reads it: a principal, or the system itself (the scheduler) with scope `system`. */
function requesterOf(p: Principal | Actor): Record<string, unknown> {
  return "scope" in p ? { principal: principalOf(p), scope: p.scope, teamIds: [...p.teamIds] } : { principal: principalOf(p), scope: "system", teamIds: [] };
}

type Doc = Record<string, unknown>;

/** The documents an access's input holds besides the access: its provider product, the contract of its port, its consumer product. */
export interface AccessDocuments {
  product: Doc | undefined;
  contract: Doc | undefined;
  consumerProduct: Doc | undefined;
}

/** The contract an access's input holds: the one its port names now, else the one it was requested under. */
function contractIdOf(record: AccessRecord, product: Doc | undefined): string | null {
  const view = product ? findOutputPort(product, record.providerOutputPortId) : undefined;
  return view?.dataContractId ?? record.doc.provider.dataContractId ?? null;
}

/** Everything a rule at an access gate may read: the access, its provider product, port and contract, its consumer and who acts. */
export async function accessInput(ex: Executor, p: Principal | Actor, record: AccessRecord, now: string): Promise<Record<string, unknown>> {
  const read = (kind: "dataproduct" | "datacontract", id: string) => resourceRepository.get<Doc>(ex, record.organizationId, kind, id).then((r) => r?.doc);
  const product = await read("dataproduct", record.providerDataProductId);
  const contractId = contractIdOf(record, product);
  const contract = contractId ? await read("datacontract", contractId) : undefined;
  const consumerProduct = record.consumerDataProductId ? await read("dataproduct", record.consumerDataProductId) : undefined;
  return assembledInput(record, { product, contract, consumerProduct }, requesterOf(p), now);
}

/**
 * The inputs of many accesses of one organization, as `accessInput` builds each but holding only
 * `variables`: the products and contracts they name are read a page at a time, and each only once
 * across calls sharing `cache` (a dry run, docs/policies.md "Trying a rule"). A document many
 * accesses share is the same object in each input.
 */
export async function accessInputs(
  ex: Executor,
  dialect: DialectName,
  p: Principal,
  records: readonly AccessRecord[],
  now: string,
  variables: ReadonlySet<string>,
  cache: Map<string, Doc | undefined>,
): Promise<Array<Record<string, unknown>>> {
  const load = async (kind: "dataproduct" | "datacontract", ids: Array<string | null>) => {
    const missing = [...new Set(ids.filter((id): id is string => id !== null && !cache.has(`${kind}\u0000${id}`)))];
    for (const chunk of chunked(missing, 100)) {
      for (const id of chunk) cache.set(`${kind}\u0000${id}`, undefined);
      for (const row of await resourceRepository.getMany(ex, dialect, p.organizationId, kind, chunk)) cache.set(`${kind}\u0000${row.id}`, JSON.parse(row.doc) as Doc);
    }
  };
  const cached = (kind: "dataproduct" | "datacontract", id: string | null) => (id === null ? undefined : cache.get(`${kind}\u0000${id}`));
  const wants = (...names: string[]) => names.some((name) => variables.has(name));
  if (wants("product", "port", "contract")) await load("dataproduct", records.map((r) => r.providerDataProductId));
  if (wants("consumer")) await load("dataproduct", records.map((r) => r.consumerDataProductId));
  const contractIds = wants("contract") ? records.map((r) => contractIdOf(r, cached("dataproduct", r.providerDataProductId))) : [];
  await load("datacontract", contractIds);
  const requester = requesterOf(p);
  return records.map((record, i) =>
    assembledInput(record, { product: cached("dataproduct", record.providerDataProductId), contract: cached("datacontract", contractIds[i] ?? null), consumerProduct: cached("dataproduct", record.consumerDataProductId) }, requester, now, variables),
  );
}

/** The input of one access from its documents; with `variables`, only those members. */
function assembledInput(record: AccessRecord, docs: AccessDocuments, requester: Record<string, unknown>, now: string, variables?: ReadonlySet<string>): Record<string, unknown> {
  const { product, contract, consumerProduct } = docs;
  const wants = (name: string) => variables === undefined || variables.has(name);
  const input: Record<string, unknown> = {};
  if (wants("access")) input.access = present(record);
  if (wants("product")) input.product = product ?? {};
  if (wants("port")) {
    const view = product ? findOutputPort(product, record.providerOutputPortId) : undefined;
    input.port = view ? { ...view.raw, id: view.id, containsPii: view.containsPii, autoApprove: view.autoApprove, ...(view.type ? { type: view.type } : {}) } : {};
  }
  if (wants("contract")) input.contract = contract ?? {};
  if (wants("consumer")) {
    const consumer = record.doc.consumer as Record<string, unknown>;
    input.consumer = {
      type: record.consumerType === "dataProduct" ? "dataproduct" : record.consumerType,
      ...(record.consumerTeamId !== null ? { teamId: record.consumerTeamId } : {}),
      ...(record.consumerDataProductId !== null ? { dataProductId: record.consumerDataProductId } : {}),
      ...(typeof consumer.userId === "string" ? { userId: consumer.userId } : {}),
      product: consumerProduct ?? {},
    };
  }
  if (wants("requester")) input.requester = requester;
  if (wants("now")) input.now = now;
  return input;
}

/** A new request's verdicts: deny refuses (422); `holds` says it must wait for approvals even where it would be approved at once. */
export interface RequestDecision {
  extras: EventExtras | undefined;
  holds: boolean;
}

/** What approving decides: whether it is the last approval needed, and what to record. */
export type ApprovalDecision =
  | { kind: "plain"; extras: EventExtras | undefined }
  | { kind: "recorded"; extras: EventExtras; met: boolean; duplicate: boolean };

/** Whether a principal may approve an access that needs several approvals now, and why not. */
export interface ApprovalStanding {
  eligible: boolean;
  /** Why not eligible: each requirement's reason. */
  why?: string;
  /** Eligible, but only for a level that waits for an earlier one. */
  waiting?: string;
}

const extrasOf = (verdicts: RecordedVerdict[]): EventExtras | undefined => (verdicts.length > 0 ? { verdicts } : undefined);

export class AccessGates {
  constructor(private readonly enforcement: PolicyEnforcement) {}

  private judge(ex: Executor, p: Principal | Actor, gate: Gate, input: Record<string, unknown>): Promise<Judgement> {
    return this.enforcement.judge(ex, p.organizationId, gate, input);
  }

  async request(ex: Executor, p: Principal, record: AccessRecord, now: string): Promise<RequestDecision> {
    const input = await accessInput(ex, p, record, now);
    const judgement = await this.judge(ex, p, "access.request", input);
    if (judgement.denied.length > 0) throw refusal(422, "Requesting this access", judgement);
    const roles = contractRoleRequirements(input.contract as Record<string, unknown>, record.doc.roles ?? []);
    return { extras: extrasOf(judgement.recorded), holds: judgement.requirements.length > 0 || roles.length > 0 };
  }

  /**
   * The approvals the access needs now: the require-approvals policies at access.request and
   * access.approve, and the approvers of the contract's roles it requests.
   */
  async requirements(ex: Executor, p: Principal, record: AccessRecord, now: string): Promise<{ requirements: ApprovalRequirement[]; approve: Judgement; input: Record<string, unknown> }> {
    const input = await accessInput(ex, p, record, now);
    const requested = await this.judge(ex, p, "access.request", input);
    const approve = await this.judge(ex, p, "access.approve", input);
    const requirements = [...requested.requirements, ...approve.requirements, ...contractRoleRequirements(input.contract as Record<string, unknown>, record.doc.roles ?? [])];
    return { requirements, approve: { ...approve, held: [...requested.held, ...approve.held], recorded: [...requested.held, ...approve.recorded] }, input };
  }

  /**
   * Whether `p` may give one of the approvals the access needs, and if not why; `waiting` when
   * each one `p` may give waits for an earlier level (approval order).
   */
  async standing(ex: Executor, p: Principal, record: AccessRecord, requirements: readonly ApprovalRequirement[]): Promise<ApprovalStanding> {
    const who = approverOf(p);
    const mine = requirements.flatMap((r, i) => (eligibleFor(r, who, record.providerTeamId) ? [i] : []));
    if (mine.length === 0) return { eligible: false, why: ineligibility(requirements, who, record.providerTeamId) };
    const state = approvalState(requirements, await approvalRepository.list(ex, record.organizationId, record.id), record.providerTeamId);
    if (!mine.every((i) => state.waiting[i])) return { eligible: true };
    const waitsFor = mine.map((i) => requirements.find((r) => r.source === requirements[i]!.after)!);
    const names = [...new Set(waitsFor.map((r) => `'${r.name}'`))].join(", ");
    return { eligible: true, waiting: `This principal gives a later level of approval, which counts only after ${names} is complete: approve once those approvers have (docs/policies.md). Nothing was recorded.` };
  }

  /** Records `p`'s approval (after authorization) and says whether the access now has all it needs. */
  async approve(ex: Executor, p: Principal, record: AccessRecord, plan: { requirements: ApprovalRequirement[]; approve: Judgement }, comment: string | undefined, now: string): Promise<ApprovalDecision> {
    if (plan.approve.denied.length > 0) throw refusal(409, "Approving this access", plan.approve);
    if (plan.requirements.length === 0) return { kind: "plain", extras: extrasOf(plan.approve.recorded) };
    const added = await approvalRepository.add(ex, record.organizationId, record.id, approverOf(p), comment, now);
    const approvals = await approvalRepository.list(ex, record.organizationId, record.id);
    const state = approvalState(plan.requirements, approvals, record.providerTeamId);
    return { kind: "recorded", met: state.met, duplicate: !added, extras: { approvals: { given: state.given, needed: state.needed }, ...(plan.approve.recorded.length > 0 ? { verdicts: plan.approve.recorded } : {}) } };
  }

  /**
   * What the policies say about the access now, changing nothing: the verdicts at each access
   * gate, and the approvals it needs with how many each has. Shown before a person approves.
   */
  async preview(ex: Executor, p: Principal, record: AccessRecord, now: string) {
    const input = await accessInput(ex, p, record, now);
    const verdicts: RecordedVerdict[] = [];
    const requirements = contractRoleRequirements(input.contract as Record<string, unknown>, record.doc.roles ?? []);
    for (const gate of ["access.request", "access.approve", "access.activate"] as const) {
      const judgement = await this.judge(ex, p, gate, input);
      verdicts.push(...judgement.recorded);
      if (gate !== "access.activate") requirements.unshift(...judgement.requirements);
    }
    const approvals = await approvalRepository.list(ex, record.organizationId, record.id);
    const state = approvalState(requirements, approvals, record.providerTeamId);
    return {
      verdicts,
      requirements: requirements.map((r, i) => ({
        source: r.source,
        name: r.name,
        count: r.count,
        given: state.counts[i]!,
        eligibleNow: !state.waiting[i] && eligibleFor(r, approverOf(p), record.providerTeamId),
        ...(r.after !== undefined ? { after: r.after } : {}),
      })),
      approvedBy: approvals.map((a) => a.principal),
    };
  }

  /** An approval that would make the access active now passes the access.activate gate first (409 on deny). */
  async activate(ex: Executor, p: Principal, input: Record<string, unknown>): Promise<EventExtras | undefined> {
    const judgement = await this.judge(ex, p, "access.activate", input);
    if (judgement.denied.length > 0) throw refusal(409, "Activating this access", judgement);
    return extrasOf(judgement.recorded);
  }

  /**
   * The scheduler opening an access's window (its start date came): the access.activate gate,
   * judged as the system. A deny leaves the access inactive; what to record either way.
   */
  async scheduledActivation(ex: Executor, record: AccessRecord, now: string): Promise<{ refused: boolean; extras: EventExtras | undefined }> {
    const actor: Actor = { organizationId: record.organizationId };
    const judgement = await this.judge(ex, actor, "access.activate", await accessInput(ex, actor, record, now));
    return { refused: judgement.denied.length > 0, extras: extrasOf(judgement.recorded) };
  }
}
