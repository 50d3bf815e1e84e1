import { isDeepStrictEqual } from "node:util";
import { v7 as uuidv7 } from "uuid";
import type { Transaction } from "kysely";
import type { Actor, Emit, EventLog } from "../../events/log.js";
import type { Principal } from "../../platform/auth.js";
import { parseInstant, type Clock } from "../../platform/clock.js";
import type { DB, Database } from "../../platform/database/index.js";
import { conflict, invalid, notFound, Problem, type FieldViolation } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import { resourceRepository } from "../shared/resource-repository.js";
import type { DataProduct } from "../dataproducts/shapes.js";
import { isActive, PROVISIONING_TRANSITIONS, provisioningTransitionFor, TRANSITIONS, type AccessAction } from "./lifecycle.js";
import { accessRepository, type AccessListFilter, type AccessRecord, type ConsumerType } from "./repository.js";
import type { Access, Provisioning, ProvisioningReport } from "./shapes.js";

/** What a request body resolves to once its references are checked. */
interface Resolved {
  startAt: string | null;
  endAt: string | null;
  providerTeamId: string;
  dataContractId: string | null;
  autoApprove: boolean;
  consumerType: ConsumerType;
  consumerDataProductId: string | null;
  consumerTeamId: string | null;
}

export class AccessService {
  constructor(
    private readonly database: Database,
    private readonly events: EventLog,
    private readonly clock: Clock,
  ) {}

  /** The access as clients see it: the stored document with its current state filled in. */
  present(r: AccessRecord): Access {
    const { provisioning: _ignored, ...doc } = r.doc;
    return {
      ...doc,
      id: r.id,
      info: { ...doc.info, status: r.status, active: r.active },
      provider: { ...doc.provider, teamId: r.providerTeamId, dataContractId: (doc.provider.dataContractId as string | null | undefined) ?? null },
      ...(r.provisioning ? { provisioning: r.provisioning } : {}),
    };
  }

  /** Creates (POST: `id` undefined, a UUID is made) or upserts (PUT) an access request. */
  async put(p: Principal, id: string | undefined, body: Record<string, unknown>): Promise<{ access: Access; created: boolean }> {
    if (id !== undefined && body.id !== undefined && body.id !== id) {
      throw invalid(`The body's id must equal the id in the path ('${id}') or be absent.`, [{ field: "id", message: `must equal '${id}' or be absent` }]);
    }
    if (id === undefined && body.id !== undefined) {
      throw invalid("POST creates an access with a new id; use PUT /api/access/{id} to choose one.", [{ field: "id", message: "must be absent" }]);
    }
    const accessId = id ?? uuidv7();
    return this.events.transaction(p, async (trx, emit) => {
      const existing = await accessRepository.get(trx, p.organizationId, accessId, { lock: this.database.dialect });
      const input = withoutReadOnly(body, accessId);
      const resolved = await this.resolve(trx, p.organizationId, input);
      const now = this.clock.now().toISOString();
      const doc: Access = {
        ...input,
        provider: { ...input.provider, teamId: resolved.providerTeamId, dataContractId: resolved.dataContractId },
      };
      if (existing === undefined) {
        policy.consumeAccess(p, resolved.consumerTeamId);
        const record: AccessRecord = {
          organizationId: p.organizationId,
          id: accessId,
          status: "requested",
          granted: false,
          active: false,
          startAt: resolved.startAt,
          endAt: resolved.endAt,
          providerDataProductId: input.provider.dataProductId,
          providerOutputPortId: input.provider.outputPortId,
          providerTeamId: resolved.providerTeamId,
          consumerType: resolved.consumerType,
          consumerDataProductId: resolved.consumerDataProductId,
          consumerTeamId: resolved.consumerTeamId,
          doc,
          provisioning: null,
          createdAt: now,
          updatedAt: now,
        };
        emit("AccessCreatedEvent", accessId);
        emit("AccessRequestedEvent", accessId);
        if (resolved.autoApprove || (resolved.consumerTeamId !== null && resolved.consumerTeamId === resolved.providerTeamId)) {
          record.status = "approved";
          record.granted = true;
          emit("AccessApprovedEvent", accessId);
        }
        this.syncActive(record, emit, now);
        await accessRepository.insert(trx, record);
        return { access: this.present(record), created: true };
      }

      policy.updateAccess(p, existing.consumerTeamId, existing.providerTeamId);
      const fixed: FieldViolation[] = [];
      if (!isDeepStrictEqual(pickConsumer(existing.doc.consumer), pickConsumer(input.consumer))) {
        fixed.push({ field: "consumer", message: "cannot change once the access is requested; request a new access instead" });
      }
      for (const key of ["dataProductId", "outputPortId"] as const) {
        if (existing.doc.provider[key] !== input.provider[key]) fixed.push({ field: `provider.${key}`, message: "cannot change once the access is requested" });
      }
      if (fixed.length > 0) throw invalid("An access request's provider and consumer are fixed.", fixed);
      if (isDeepStrictEqual(existing.doc, doc)) return { access: this.present(existing), created: false };
      const record: AccessRecord = { ...existing, doc, startAt: resolved.startAt, endAt: resolved.endAt, updatedAt: now };
      emit("AccessUpdatedEvent", accessId);
      this.syncActive(record, emit, now);
      await accessRepository.update(trx, record);
      return { access: this.present(record), created: false };
    });
  }

  async get(p: Principal, id: string): Promise<Access> {
    return this.present(await this.find(p.organizationId, id));
  }

  async list(p: Principal, filter: AccessListFilter): Promise<Access[]> {
    const records = await accessRepository.list(this.database.db, p.organizationId, filter);
    return records.map((r) => this.present(r));
  }

  async act(p: Principal, id: string, action: AccessAction, body: { endDate?: string } = {}): Promise<Access> {
    const record = await this.change(p, id, async (record, emit, now) => {
      if (action === "cancel") policy.consumeAccess(p, record.consumerTeamId);
      else policy.provideAccess(p, record.providerTeamId);
      const transition = TRANSITIONS[action];
      if (!transition.from.includes(record.status)) {
        throw conflict(`Access '${id}' is ${record.status}; ${action} is possible only while it is ${transition.from.join(" or ")}.`);
      }
      if (action === "cancel") this.applyCancelEnd(record, body.endDate, now);
      record.status = transition.to;
      if (action === "approve") record.granted = true;
      emit(transition.event, id);
      this.syncActive(record, emit, now);
    });
    return this.present(record);
  }

  async delete(p: Principal, id: string): Promise<void> {
    await this.events.transaction(p, async (trx, emit) => {
      const record = await accessRepository.get(trx, p.organizationId, id, { lock: this.database.dialect });
      if (!record) throw notFound("Access", id);
      policy.deleteAccess(p);
      if (record.active) emit("AccessDeactivatedEvent", id);
      emit("AccessDeletedEvent", id);
      await accessRepository.delete(trx, p.organizationId, id);
    });
  }

  async report(p: Principal, id: string, transitionName: string, report: ProvisioningReport): Promise<Provisioning> {
    const transition = PROVISIONING_TRANSITIONS[transitionName];
    if (!transition) throw new Problem(400, `Unknown provisioning transition '${transitionName}'.`);
    const record = await this.change(p, id, async (record, emit, now) => {
      policy.provideAccess(p, record.providerTeamId);
      const given = Object.fromEntries(Object.entries(report).filter(([, v]) => v !== undefined));
      record.provisioning = { ...record.provisioning, ...given, status: transition.status, [transition.at]: now, updatedAt: now };
      emit(transition.event, id, { status: transition.status });
    });
    return record.provisioning!;
  }

  async getProvisioning(p: Principal, id: string): Promise<Provisioning> {
    const record = await this.find(p.organizationId, id);
    if (!record.provisioning) throw new Problem(404, `No provisioning has been reported for access '${id}' yet.`);
    return record.provisioning;
  }

  async putProvisioning(p: Principal, id: string, provisioning: Provisioning): Promise<Provisioning> {
    const record = await this.change(p, id, async (record, emit, now) => {
      policy.provideAccess(p, record.providerTeamId);
      const previous = record.provisioning?.status;
      record.provisioning = { ...provisioning, updatedAt: now };
      if (previous !== provisioning.status) emit(provisioningTransitionFor(provisioning.status).event, id, { status: provisioning.status });
    });
    return record.provisioning!;
  }

  /**
   * Brings an access's active flag up to date with the clock, emitting Activated or Deactivated.
   * Used by the scheduler. The row lock and the re-check inside the transaction make each
   * transition happen once even when several processes look at the same access.
   */
  async refresh(organizationId: string, id: string): Promise<void> {
    await this.events.transaction({ organizationId }, async (trx, emit) => {
      const record = await accessRepository.get(trx, organizationId, id, { lock: this.database.dialect });
      if (!record) return;
      const now = this.clock.now().toISOString();
      if (this.syncActive(record, emit, now)) await accessRepository.update(trx, { ...record, updatedAt: now });
    });
  }

  private async find(organizationId: string, id: string): Promise<AccessRecord> {
    const record = await accessRepository.get(this.database.db, organizationId, id);
    if (!record) throw notFound("Access", id);
    return record;
  }

  /** Runs a change to one existing access in its event transaction and saves it. */
  private async change(
    actor: Actor,
    id: string,
    apply: (record: AccessRecord, emit: Emit, now: string) => Promise<void>,
  ): Promise<AccessRecord> {
    const { organizationId } = actor;
    return this.events.transaction(actor, async (trx, emit) => {
      const record = await accessRepository.get(trx, organizationId, id, { lock: this.database.dialect });
      if (!record) throw notFound("Access", id);
      const now = this.clock.now().toISOString();
      await apply(record, emit, now);
      record.updatedAt = now;
      await accessRepository.update(trx, record);
      return record;
    });
  }

  /** Sets `active` for `now`; answers whether it changed. */
  private syncActive(record: AccessRecord, emit: Emit, now: string): boolean {
    const active = isActive(record, now);
    if (active === record.active) return false;
    record.active = active;
    emit(active ? "AccessActivatedEvent" : "AccessDeactivatedEvent", record.id);
    return true;
  }

  /** Canceling ends the access at the given end date or now, whichever the caller chose, but never later than planned. */
  private applyCancelEnd(record: AccessRecord, endDate: string | undefined, now: string): void {
    let end = now;
    let text = now;
    if (endDate !== undefined) {
      const parsed = parseInstant(endDate);
      if (parsed === null) throw invalid("The end date is not a date.", [{ field: "endDate", message: "must be an ISO 8601 date-time or date" }]);
      end = parsed;
      text = endDate;
    }
    if (record.endAt !== null && record.endAt <= end) return;
    record.endAt = end;
    record.doc = { ...record.doc, info: { ...record.doc.info, endDate: text } };
  }

  private async resolve(trx: Transaction<DB>, organizationId: string, input: Access): Promise<Resolved> {
    const violations: FieldViolation[] = [];
    const dates = { startAt: null as string | null, endAt: null as string | null };
    for (const [field, key] of [["startDate", "startAt"], ["endDate", "endAt"]] as const) {
      const text = input.info[field];
      if (text === undefined || text === null) continue;
      const parsed = parseInstant(text);
      if (parsed === null) violations.push({ field: `info.${field}`, message: "must be an ISO 8601 date-time or date" });
      dates[key] = parsed;
    }
    if (dates.startAt !== null && dates.endAt !== null && dates.endAt <= dates.startAt) {
      violations.push({ field: "info.endDate", message: "must be after startDate" });
    }

    const consumerKinds = (["dataProductId", "teamId", "userId"] as const).filter((k) => input.consumer[k] !== undefined);
    if (consumerKinds.length !== 1) {
      violations.push({ field: "consumer", message: "must name exactly one of dataProductId, teamId or userId" });
    }

    const product = await resourceRepository.get<DataProduct>(trx, organizationId, "dataproduct", input.provider.dataProductId);
    const port = product?.doc.outputPorts?.find((o) => o.id === input.provider.outputPortId);
    if (!product) violations.push({ field: "provider.dataProductId", message: `no data product '${input.provider.dataProductId}' exists` });
    else if (!port) violations.push({ field: "provider.outputPortId", message: `data product '${product.id}' has no output port '${input.provider.outputPortId}'` });

    let consumerTeamId: string | null = null;
    const { dataProductId, teamId } = input.consumer;
    if (consumerKinds.length === 1 && dataProductId !== undefined) {
      const consumer = await resourceRepository.get<DataProduct>(trx, organizationId, "dataproduct", dataProductId);
      if (!consumer) violations.push({ field: "consumer.dataProductId", message: `no data product '${dataProductId}' exists` });
      consumerTeamId = consumer?.doc.info.owner ?? null;
    } else if (consumerKinds.length === 1 && teamId !== undefined) {
      if (!(await resourceRepository.get(trx, organizationId, "team", teamId))) {
        violations.push({ field: "consumer.teamId", message: `no team '${teamId}' exists` });
      }
      consumerTeamId = teamId;
    }
    if (violations.length > 0) throw invalid("The access request is not valid.", violations);
    return {
      ...dates,
      providerTeamId: product!.doc.info.owner,
      dataContractId: port!.dataContractId ?? null,
      autoApprove: port!.autoApprove === true,
      consumerType: dataProductId !== undefined ? "dataProduct" : teamId !== undefined ? "team" : "user",
      consumerDataProductId: dataProductId ?? null,
      consumerTeamId,
    };
  }
}

function pickConsumer(c: Access["consumer"]) {
  return { dataProductId: c.dataProductId, teamId: c.teamId, userId: c.userId };
}

/** Read-only members in a request body are ignored, not rejected (PRODUCT.md §4). */
function withoutReadOnly(body: Record<string, unknown>, id: string): Access {
  const input = structuredClone(body) as Access;
  delete input.provisioning;
  const { status: _s, active: _a, ...info } = input.info;
  const { teamId: _t, dataContractId: _d, ...provider } = input.provider;
  return { ...input, id, info, provider } as Access;
}
