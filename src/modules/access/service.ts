import { v7 as uuidv7 } from "uuid";
import { ACCESS_EVENT_KINDS } from "../../events/kinds.js";
import type { Emit, EventLog } from "../../events/log.js";
import type { Principal } from "../../platform/auth.js";
import { parseInstant, type Clock } from "../../platform/clock.js";
import type { Database, Executor } from "../../platform/database/index.js";
import { badRequest, type FieldViolation, invalid, missing, notFound } from "../../platform/errors.js";
import { accessPolicy } from "../../policies/access.js";
import { checkDocumentSize, type DocumentLimits } from "../catalog/document-limits.js";
import { checkPreconditions, type Preconditions } from "../catalog/document-service.js";
import { accessJson, fixedViolations, parseDates, present, readBody, resolveNew } from "./documents.js";
import { approvedOnCreation, PROVISIONING_TRANSITIONS, changesOf, isActive, stageOf, type AccessAction } from "./lifecycle.js";
import { accessRepository, type AccessListFilter, type AccessRecord } from "./repository.js";
import type { Access, HistoryEntry, Provisioning, ProvisioningReport } from "./shapes.js";
import { approvalRepository } from "./approvals.js";
import { accessInput, type AccessGates } from "./policy-gates.js";
import { approveUnderPolicies } from "./approval-flow.js";
import * as decisions from "./decisions.js";
import type { AccessEvent, Decision } from "./decisions.js";
import { planOfAccess } from "./privileges.js";
import type { Parsing } from "../../schema-formats/off-thread.js";
import type { PrivilegesPlan } from "../../privileges/plan.js";

/**
 * The use cases of access requests. Who may do what, and when, is lifecycle.ts's table; what each
 * change does to an access is decisions.ts's: the service loads, asks the policy, decides, stores.
 */
export class AccessService {
  constructor(
    private readonly database: Database,
    private readonly events: EventLog,
    private readonly clock: Clock,
    private readonly limits: DocumentLimits,
    /** The application's parse limits and worker threads, for the contract a privileges plan reads. */
    private readonly parsing: Parsing,
    /** The organization's policies at the access gates (docs/policies.md); none when absent. */
    private readonly gates?: AccessGates,
  ) {}

  /**
   * Creates (POST: `id` undefined, a UUID is made) or upserts (PUT) an access request. `conditions`
   * are judged against the access as a GET answers it, whose digest is its ETag.
   */
  async put(p: Principal, id: string | undefined, body: Record<string, unknown>, conditions: Preconditions = {}): Promise<{ access: Access; created: boolean }> {
    if (id !== undefined && body.id !== undefined && body.id !== id) {
      throw invalid(`The body's id must equal the id in the path ('${id}') or be absent.`, [{ field: "id", message: `must equal '${id}' or be absent` }]);
    }
    if (id === undefined && body.id !== undefined) {
      throw invalid("POST creates an access with a new id; use PUT /api/access/{id} to choose one.", [{ field: "id", message: "must be absent" }]);
    }
    // Size first: a body over the limit is not copied or checked at all.
    checkDocumentSize("Access", JSON.stringify(body), this.limits);
    const accessId = id ?? uuidv7();
    return this.events.transaction(p, async (trx, emit) => {
      const existing = await accessRepository.get(trx, p.organizationId, accessId, { lock: this.database.dialect });
      checkConditions(accessId, existing, conditions);
      const input = readBody(body, accessId);
      const now = this.clock.now().toISOString();
      if (existing !== undefined) return { access: present(await this.update(p, existing, input, emit, now, trx)), created: false };

      const violations: FieldViolation[] = [];
      const resolved = await resolveNew(trx, p.organizationId, input, violations);
      if (!resolved) throw invalid("The access request is not valid.", violations);
      accessPolicy.request(p, resolved.consumerTeamId);
      const record: AccessRecord = {
        organizationId: p.organizationId,
        id: accessId,
        status: "requested",
        canceledAt: null,
        active: false,
        startAt: resolved.startAt,
        endAt: resolved.endAt,
        providerDataProductId: input.provider.dataProductId,
        providerOutputPortId: resolved.providerOutputPortId,
        providerProductRowId: resolved.providerProductRowId,
        consumerType: resolved.consumerType,
        consumerDataProductId: resolved.consumerDataProductId,
        consumerRowId: resolved.consumerRowId,
        requestedProviderTeamId: resolved.providerTeamId,
        requestedConsumerTeamId: resolved.consumerTeamId,
        providerTeamId: resolved.providerTeamId,
        consumerTeamId: resolved.consumerTeamId,
        doc: resolved.doc,
        provisioning: null,
        createdAt: now,
        updatedAt: now,
      };
      const gated = await this.gates?.request(trx, p, record, now);
      // An access that needs approvals from several people is never approved at once.
      const decision = decisions.create(record, { approvedAtOnce: approvedOnCreation(resolved) && gated?.holds !== true, requested: gated?.extras }, now);
      const access = present(decision.record);
      checkStoredSize("Access", access, this.limits);
      emitAll(emit, decision);
      await accessRepository.insert(trx, decision.record);
      return { access, created: true };
    });
  }

  async get(p: Principal, id: string): Promise<Access> {
    return present(await this.find(p.organizationId, id));
  }

  /** One page; `cut` says it ended at PAGE_LIMIT_BYTES with more to follow. */
  async list(p: Principal, filter: AccessListFilter): Promise<{ accesses: Access[]; cut: boolean }> {
    const { records, cut } = await accessRepository.list(this.database.db, p.organizationId, filter, this.limits.pageBytes);
    return { accesses: records.map(present), cut };
  }

  /** The access's events since it was (last) created, oldest first, with who caused each by name. */
  async history(p: Principal, id: string, offset: number, limit: number): Promise<HistoryEntry[]> {
    await this.find(p.organizationId, id);
    const rows = await this.events.readHistory(p.organizationId, id, ACCESS_EVENT_KINDS, "AccessCreatedEvent", offset, limit);
    const names = await this.events.principalNames(p.organizationId, rows.map((r) => r.principal));
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      time: r.time,
      principal: r.principal,
      principalName: names.get(r.principal) ?? r.principal,
      comment: r.comment,
      data: JSON.parse(r.data) as Record<string, unknown>,
    }));
  }

  /** What the access allows, per object and column (docs/consumers.md); readable by whoever may read the access. */
  async privileges(p: Principal, id: string): Promise<PrivilegesPlan> {
    return planOfAccess(this.database.db, await this.find(p.organizationId, id), this.parsing);
  }

  /**
   * The provider side approves a requested access; it activates at once when its window is open.
   * An access its policies hold stays requested until enough eligible people approved
   * (docs/policies.md): each approval is recorded, and the last one approves it.
   */
  async approve(p: Principal, id: string, comment?: string): Promise<Access> {
    const gates = this.gates;
    if (!gates) {
      return this.change(p, id, "approve", (record, now) => decisions.approve(record, { comment }, now));
    }
    return this.events.transaction(p, (trx, emit) => approveUnderPolicies(gates, trx, emit, p, id, comment, this.clock.now().toISOString(), this.database.dialect));
  }

  /** The provider side rejects a requested access, which closes it. */
  async reject(p: Principal, id: string, comment?: string): Promise<Access> {
    return this.change(p, id, "reject", (record, now) => decisions.reject(record, { comment }, now));
  }

  /**
   * Either side cancels an approved access: it stays approved and ends at the given date or now,
   * never later than an end it already has.
   */
  async cancel(p: Principal, id: string, body: { endDate?: string; comment?: string }): Promise<Access> {
    let end: string | null = null;
    if (body.endDate !== undefined) {
      end = parseInstant(body.endDate);
      if (end === null) throw invalid("The end date is not a date.", [{ field: "endDate", message: "must be an ISO 8601 date-time or date" }]);
    }
    return this.change(p, id, "cancel", (record, now) => decisions.cancel(record, { endAt: end, endDate: body.endDate, comment: body.comment }, now));
  }

  /**
   * A person left the organization (deprovisioned through SCIM): every approved access they
   * consume as a person (consumer {userId}: their address or account id) ends now, with its
   * Canceled and Deactivated events. Each access is locked and checked again, so two processes
   * deprovisioning at once cancel it once.
   */
  async endForPerson(actor: Principal, userIds: string[]): Promise<string[]> {
    return this.events.transaction(actor, async (trx, emit) => {
      const ended: string[] = [];
      for (const id of await accessRepository.openForPerson(trx, actor.organizationId, userIds)) {
        const record = await accessRepository.get(trx, actor.organizationId, id, { lock: this.database.dialect });
        const decision = record && decisions.endForPerson(record, this.clock.now().toISOString());
        if (!decision) continue;
        emitAll(emit, decision);
        await accessRepository.update(trx, decision.record);
        ended.push(id);
      }
      return ended;
    });
  }

  async delete(p: Principal, id: string, conditions: Pick<Preconditions, "ifMatch"> = {}): Promise<void> {
    await this.events.transaction(p, async (trx, emit) => {
      const record = await accessRepository.get(trx, p.organizationId, id, { lock: this.database.dialect });
      if (!record) throw notFound("Access", id);
      checkConditions(id, record, conditions);
      accessPolicy.act(p, record, "delete", stageOf(record, this.clock.now().toISOString()));
      emitAll(emit, { record, events: decisions.remove(record) });
      await accessRepository.delete(trx, p.organizationId, id);
      await approvalRepository.forget(trx, p.organizationId, id);
    });
  }

  async report(p: Principal, id: string, transitionName: string, report: ProvisioningReport): Promise<Provisioning> {
    const transition = PROVISIONING_TRANSITIONS[transitionName];
    if (!transition) throw badRequest(`Unknown provisioning transition '${transitionName}'.`);
    checkDocumentSize("Provisioning report", JSON.stringify(report), this.limits);
    let result: Provisioning | null = null;
    await this.change(p, id, "report-provisioning", (record, now) => {
      const decision = decisions.reportProvisioning(record, { transition, report }, now);
      checkStoredSize(WITH_PROVISIONING, present(decision.record), this.limits);
      result = decision.record.provisioning;
      return decision;
    });
    return result!;
  }

  async getProvisioning(p: Principal, id: string): Promise<Provisioning> {
    const record = await this.find(p.organizationId, id);
    if (!record.provisioning) throw missing(`No provisioning has been reported for access '${id}' yet.`);
    return record.provisioning;
  }

  async putProvisioning(p: Principal, id: string, provisioning: Provisioning): Promise<Provisioning> {
    checkDocumentSize("Provisioning record", JSON.stringify(provisioning), this.limits);
    let result: Provisioning | null = null;
    await this.change(p, id, "report-provisioning", (record, now) => {
      const decision = decisions.putProvisioning(record, { provisioning }, now);
      checkStoredSize(WITH_PROVISIONING, present(decision.record), this.limits);
      result = decision.record.provisioning;
      return decision;
    });
    return result!;
  }

  /**
   * Brings up to `limit` due accesses of one organization up to date with the clock, in one
   * transaction, as the system. Answers how many it changed. Rows are locked (PostgreSQL) and
   * each one re-checked, so a transition happens once however many processes look at it.
   */
  async refreshDue(organizationId: string, limit: number): Promise<number> {
    return this.events.transaction({ organizationId }, async (trx, emit) => {
      const now = this.clock.now().toISOString();
      const due = await accessRepository.dueIn(trx, this.database.dialect, organizationId, now, limit);
      let changed = 0;
      for (const record of due) {
        // Opening its window: the access.activate gate decides first (docs/policies.md).
        const gate = !record.active && isActive(record, now) ? await this.gates?.scheduledActivation(trx, record, now) : undefined;
        const decision = decisions.refresh(record, now, gate);
        if (decision.record === record) continue;
        emitAll(emit, decision);
        await accessRepository.update(trx, decision.record);
        changed++;
      }
      return changed;
    });
  }

  /** A PUT to an existing access: which members changed decides which rule applies. */
  private async update(p: Principal, existing: AccessRecord, input: Access, emit: Emit, now: string, trx: Executor): Promise<AccessRecord> {
    accessPolicy.party(p, existing);
    const fixed = fixedViolations(existing, input);
    if (fixed.length > 0) throw invalid("An access's provider and consumer never change after it is requested.", fixed);
    const { dataContractId, dataContractVersion } = existing.doc.provider;
    const doc: Access = {
      ...input,
      provider: { ...input.provider, ...(dataContractId != null ? { dataContractId } : {}), ...(dataContractVersion != null ? { dataContractVersion } : {}) },
      consumer: existing.doc.consumer,
    };
    const { datesChanged, agreementChanged, termsChanged, labelsChanged } = changesOf(existing.doc, doc);
    if (!datesChanged && !agreementChanged && !termsChanged && !labelsChanged) return existing;

    const stage = stageOf(existing, now);
    if (datesChanged) accessPolicy.act(p, existing, "change-dates", stage);
    if (agreementChanged) accessPolicy.act(p, existing, "change-agreement", stage);
    if (termsChanged) accessPolicy.act(p, existing, "change-terms", stage);
    if (labelsChanged) accessPolicy.act(p, existing, "change-labels", stage);
    const violations: FieldViolation[] = [];
    const dates = parseDates(doc.info, violations);
    if (violations.length > 0) throw invalid("The access is not valid.", violations);

    // Dates that open the window of an approved access activate it now: the access.activate gate decides (409 on deny).
    const opens = !existing.active && isActive({ ...existing, ...dates }, now);
    const activation = opens && this.gates ? await this.gates.activate(trx, p, await accessInput(trx, p, { ...existing, doc, ...dates }, now)) : undefined;
    const decision = decisions.update(existing, { doc, ...dates, activation }, now);
    checkStoredSize("Access", present(decision.record), this.limits);
    emitAll(emit, decision);
    await accessRepository.update(trx, decision.record);
    return decision.record;
  }

  private async find(organizationId: string, id: string): Promise<AccessRecord> {
    const record = await accessRepository.get(this.database.db, organizationId, id);
    if (!record) throw notFound("Access", id);
    return record;
  }

  /** Runs one lifecycle action on an existing access, if lifecycle.ts allows it, and saves it. */
  private async change(p: Principal, id: string, action: AccessAction, decide: (record: AccessRecord, now: string) => Decision): Promise<Access> {
    return this.events.transaction(p, async (trx, emit) => {
      const record = await accessRepository.get(trx, p.organizationId, id, { lock: this.database.dialect });
      if (!record) throw notFound("Access", id);
      const now = this.clock.now().toISOString();
      accessPolicy.act(p, record, action, stageOf(record, now));
      const decision = decide(record, now);
      emitAll(emit, decision);
      await accessRepository.update(trx, decision.record);
      return present(decision.record);
    });
  }
}

/**
 * The request's conditions, judged against the access as a GET answers it, whose digest is its
 * ETag. Rendered only when the request has conditions: most writes have none.
 */
function checkConditions(id: string, existing: AccessRecord | undefined, conditions: Preconditions): void {
  if (conditions.ifMatch === undefined && conditions.ifNoneMatch === undefined) return;
  checkPreconditions("Access", id, existing && accessJson(present(existing)), conditions);
}

const WITH_PROVISIONING = "Access with this provisioning record";

/**
 * An access is one stored document with its provisioning record: a GET answers both, so together
 * they stay within DOCUMENT_LIMIT_BYTES. Checked where a request makes the access bigger (its
 * terms, a provisioning report); the lifecycle's own changes of state never refuse an access.
 */
function checkStoredSize(label: string, access: Access, limits: DocumentLimits): void {
  checkDocumentSize(label, accessJson(access), limits);
}

/** Appends a decision's events, in order, about its access. */
function emitAll(emit: Emit, decision: { record: AccessRecord; events: AccessEvent[] }): void {
  for (const e of decision.events) emit(e.kind, decision.record.id, e.extras, e.comment);
}
