import { contractFormatOf, type ContractDocument, type ModelGroup } from "../../../contract-formats/index.js";
import { boundedModels, contractModels, contractViolations, parseContractAhead } from "../../../contract-formats/models.js";
import { diffModels } from "../../../contract-changes/diff.js";
import { diffDocument } from "../../../contract-changes/document-diff.js";
import type { NormalizedModel } from "../../../schema-formats/types.js";
import type { ContractChange } from "../../../contract-changes/rules.js";
import { principalOf, type Actor, type EventLog } from "../../../events/log.js";
import { principalNames } from "../../people/principal-names.js";
import type { Principal } from "../../../platform/auth.js";
import type { Clock } from "../../../platform/clock.js";
import type { Database, Executor } from "../../../platform/database/index.js";
import { invalid, notFound, ProblemWithMembers } from "../../../platform/errors.js";
import { policy } from "../../../policies/index.js";
import { accessRepository } from "../../access/repository.js";
import { resourceRepository } from "../../catalog/resource-repository.js";
import { checkDocumentSize, type DocumentLimits } from "../../catalog/document-limits.js";
import type { Parsing } from "../../../schema-formats/off-thread.js";
import { contractVersionRepository } from "./repository.js";
import { withMembers } from "../../../platform/objects.js";
import { contractOwner, HOW_TO_OWN } from "../service.js";
import { proposalHash, proposalOf, toldBefore } from "./proposals.js";

/** How many affected accesses a comparison names; the count says whether there are more. */
const MAX_AFFECTED = 1000;

/**
 * How many changes one comparison lists. Two versions of 100,000 fields each can differ in
 * 200,000 ways, and every breaking change names the affected accesses: listed in full, such an
 * answer would run to gigabytes. The report lists breaking changes first, stops at this count or at
 * the page byte limit (PAGE_LIMIT_BYTES), and says how many it left out; `breaking` is over them all.
 */
export const MAX_LISTED_CHANGES = 1000;

export interface AffectedAccess {
  id: string;
  consumerTeamId: string | null;
  consumerDataProductId: string | null;
}

export interface ChangeReport {
  from: number | "current";
  to: number | "proposed";
  breaking: boolean;
  changes: Array<ContractChange & { affectedAccesses: string[] }>;
  /** Changes found but not listed (see `MAX_LISTED_CHANGES`); absent when every change is listed. */
  omittedChanges?: number;
  /** Approved accesses under the contract that have not ended: whom a breaking change breaks. */
  affectedAccesses: AffectedAccess[];
}

/**
 * A contract's model groups flattened across its schemas. Named types that fields refer to by
 * `ref` (described once) are compared as one more model, `definitions`, so a change inside a
 * shared type is seen once, where it is defined.
 */
function flattened(groups: ModelGroup[]): NormalizedModel[] {
  const definitions = groups.flatMap((group) => group.definitions ?? []);
  const models = groups.flatMap((group) => group.models);
  return definitions.length > 0 ? [...models, { name: "definitions", kind: "record", fields: definitions }] : models;
}

/** The semantic-versioning major number of a version string (`2.1.0`, `v3`), if it has one. */
export function majorOf(version: string | undefined): number | undefined {
  const match = /^v?(\d+)(?:[.\-+]|$)/i.exec(version?.trim() ?? "");
  return match ? Number(match[1]) : undefined;
}

/**
 * A contract's history (docs/product.md §9): every stored document as a numbered version, the
 * differences between any two or against a proposed document (its models and every other member,
 * docs/versions.md), and the gate that refuses a breaking change while approved accesses depend on the contract.
 */
export class ContractVersionService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly limits: DocumentLimits,
    /** Where a proposal that breaks approved accesses is appended (`proposeToConsumers`). */
    private readonly events: EventLog,
    /** The application's parse limits and worker threads, which the compared contracts are held to. */
    private readonly parsing: Parsing,
  ) {}

  /** The normalized models of a contract, flattened; 422 when they are over the application's field limit. */
  private models(doc: ContractDocument): NormalizedModel[] {
    return flattened(contractModels(doc, this.parsing.limits));
  }

  /** The proposal being told per organization and contract, so that the next one waits for it. */
  private readonly proposing = new Map<string, Promise<unknown>>();

  /** The stored contract, or 404: versions are read like the contract itself (any key of its organization). */
  private async current(p: Principal, id: string): Promise<ContractDocument & { id: string }> {
    const found = await resourceRepository.get<ContractDocument & { id: string }>(this.database.db, p.organizationId, "datacontract", id);
    if (!found) throw notFound("Data contract", id);
    return found.doc;
  }

  async list(p: Principal, id: string, offset: number, limit: number) {
    await this.current(p, id);
    const versions = await contractVersionRepository.list(this.database.db, p.organizationId, id, offset, limit);
    const names = await principalNames(this.database.db, p.organizationId, versions.map((v) => v.principal));
    return versions.map((v) => ({ ...v, principalName: names.get(v.principal) ?? v.principal }));
  }

  /**
   * Version `n` of the contract: the document's JSON text exactly as it was stored, so that it can
   * be read, compared or PUT back as it is. Who stored it, and when, is in the list.
   */
  async get(p: Principal, id: string, n: number): Promise<string> {
    await this.current(p, id);
    const version = await contractVersionRepository.get(this.database.db, p.organizationId, id, n);
    if (!version) throw notFound(`Version ${n} of data contract`, id);
    return version.json!;
  }

  /** Differences between stored versions `from` and `to` (default: the two newest). */
  async changesBetween(p: Principal, id: string, from: number | undefined, to: number | undefined): Promise<ChangeReport> {
    await this.current(p, id);
    const newest = (await contractVersionRepository.list(this.database.db, p.organizationId, id, 0, 1))[0]?.n ?? 1;
    const toN = to ?? newest;
    const fromN = from ?? Math.max(1, toN - 1);
    const [a, b] = await Promise.all([this.versionDoc(p, id, fromN), this.versionDoc(p, id, toN)]);
    await parseContractAhead(a, this.parsing);
    await parseContractAhead(b, this.parsing);
    return this.report(this.database.db, p.organizationId, id, fromN, toN, [...diffModels(this.models(a), this.models(b)), ...diffDocument(a, b)]);
  }

  /** Differences between the current document and a proposed one, without storing anything. */
  async changesProposed(p: Principal, id: string, proposed: ContractDocument): Promise<ChangeReport> {
    return (await this.compareProposed(p, id, proposed)).report;
  }

  /**
   * The comparison of `changesProposed`, and, when the proposal breaks approved accesses, the event
   * that tells their consumers (docs/versions.md, "Telling consumers"). Only a principal that may
   * update the contract may tell; the same proposed document is told once a day.
   */
  async proposeToConsumers(p: Principal, id: string, proposed: ContractDocument): Promise<{ report: ChangeReport; notified: number; earlier?: string }> {
    // Judged before the body is compared: a principal that may not change the contract learns nothing more here than from the comparison.
    const stored = await this.current(p, id);
    policy.writeOwned(p, "data contract", [contractOwner(stored) ?? null], "update", HOW_TO_OWN);
    const { report, candidate, changes } = await this.compareProposed(p, id, proposed);
    // As the PUT of the same document: a team may neither give the contract away nor name no owner.
    policy.writeOwned(p, "data contract", [contractOwner(stored) ?? null, contractOwner({ ...candidate, id }) ?? null], "update", HOW_TO_OWN);
    if (!report.breaking) return { report, notified: 0 };
    const hash = proposalHash(candidate);
    // Changes that commit together (group commit) do not see each other's events, so this process
    // tells one proposal per contract at a time; groups themselves commit one after another under
    // the organization's append lock. Two identical proposals at once therefore append one event.
    const key = `${p.organizationId}\u0000${id}`;
    const mine = (this.proposing.get(key) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() =>
        this.events.transaction(p, async (trx, emit) => {
          const now = this.clock.now();
          const accesses = await accessRepository.approvedUnderContract(trx, p.organizationId, id, now.toISOString(), MAX_AFFECTED);
          if (accesses.length === 0) return { report, notified: 0 };
          const earlier = await toldBefore(trx, p.organizationId, id, hash, now);
          if (earlier !== undefined) return { report, notified: 0, earlier };
          const version = contractFormatOf(candidate).facts(candidate).version ?? null;
          emit("DataContractChangeProposedEvent", id, { proposal: proposalOf(version, hash, changes, accesses.map((a) => a.id)) });
          return { report, notified: accesses.length };
        }),
      );
    this.proposing.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.proposing.get(key) === mine) this.proposing.delete(key);
    }
  }

  private async compareProposed(p: Principal, id: string, proposed: ContractDocument): Promise<{ report: ChangeReport; candidate: ContractDocument; changes: ContractChange[] }> {
    // As for a PUT of the same document: a body naming another contract is a mistake, not a proposal.
    if (proposed.id !== undefined && proposed.id !== id) {
      throw invalid(`The proposed document's id must equal the id in the path ('${id}') or be absent.`, [{ field: "id", message: `must equal '${id}' or be absent` }]);
    }
    // A proposal is judged as the PUT of it would be: over the stored-document limit it is not parsed.
    checkDocumentSize("Proposed data contract", JSON.stringify(proposed), this.limits);
    const current = await this.current(p, id);
    const candidate = withMembers(proposed, { id });
    await parseContractAhead(current, this.parsing);
    await parseContractAhead(candidate, this.parsing);
    const violations = contractViolations(candidate, this.parsing.limits);
    if (violations.length > 0) throw invalid("The proposed data contract is not valid.", violations);
    const changes = [...diffModels(this.models(current), this.models(candidate)), ...diffDocument(current, candidate)];
    return { report: await this.report(this.database.db, p.organizationId, id, "current", "proposed", changes), candidate, changes };
  }

  /**
   * The breaking-change gate, run inside the transaction of a contract update: answers whether the
   * change is breaking, and refuses it (409, with the changes and the accesses they would break)
   * when approved accesses depend on the contract, unless the document raises its major version
   * or an organization-scoped principal says `allowBreaking`.
   */
  async review(ex: Executor, p: Principal, before: ContractDocument & { id: string }, after: ContractDocument, allowBreaking: boolean): Promise<{ breaking: boolean }> {
    if (allowBreaking) policy.overrideBreakingChange(p);
    // A document stored over the field limit (before the limit was lowered) has no models to compare:
    // the update that brings it within the limit starts its comparisons afresh.
    const previous = boundedModels(before, this.parsing.limits);
    const changes = [...diffModels(previous.ok ? flattened(previous.groups) : [], this.models(after)), ...diffDocument(before, after)];
    const breakingChanges = changes.filter((c) => c.breaking);
    if (breakingChanges.length === 0) return { breaking: false };
    if (allowBreaking) return { breaking: true };
    const majorBefore = majorOf(contractFormatOf(before).facts(before).version);
    const majorAfter = majorOf(contractFormatOf(after).facts(after).version);
    if (majorBefore !== undefined && majorAfter !== undefined && majorAfter > majorBefore) return { breaking: true };

    const report = await this.report(ex, p.organizationId, before.id, "current", "proposed", breakingChanges);
    if (report.affectedAccesses.length === 0) return { breaking: true };
    throw new ProblemWithMembers(
      409,
      `This change to data contract '${before.id}' is breaking (${breakingChanges.length} breaking change(s)) and ${report.affectedAccesses.length} approved access(es) depend on it. ` +
        "Raise the contract's major version, or, with an organization key, repeat the request with ?allowBreaking=true.",
      { breakingChanges: report.changes, ...(report.omittedChanges ? { omittedChanges: report.omittedChanges } : {}), affectedAccesses: report.affectedAccesses },
    );
  }

  /** Keeps the document just written, and its JSON text as stored, as the contract's next version (same transaction). */
  async record(ex: Executor, actor: Actor, id: string, doc: ContractDocument, json: string): Promise<void> {
    await contractVersionRepository.append(ex, {
      organizationId: actor.organizationId,
      contractId: id,
      version: contractFormatOf(doc).facts(doc).version ?? null,
      json,
      principal: principalOf(actor),
      at: this.clock.now().toISOString(),
    });
  }

  async forget(ex: Executor, organizationId: string, id: string): Promise<void> {
    await contractVersionRepository.deleteAll(ex, organizationId, id);
  }

  private async versionDoc(p: Principal, id: string, n: number): Promise<ContractDocument> {
    const version = await contractVersionRepository.get(this.database.db, p.organizationId, id, n);
    if (!version) throw notFound(`Version ${n} of data contract`, id);
    return withMembers(version.doc as ContractDocument, { id });
  }

  private async report(ex: Executor, organizationId: string, id: string, from: ChangeReport["from"], to: ChangeReport["to"], changes: ContractChange[]): Promise<ChangeReport> {
    const breaking = changes.some((c) => c.breaking);
    const accesses = breaking ? await accessRepository.approvedUnderContract(ex, organizationId, id, this.clock.now().toISOString(), MAX_AFFECTED) : [];
    const ids = accesses.map((a) => a.id);
    const listed = listedChanges(changes, ids, this.limits.pageBytes);
    return {
      from,
      to,
      breaking,
      changes: listed.map((c) => ({ ...c, affectedAccesses: c.breaking ? ids : [] })),
      ...(listed.length < changes.length ? { omittedChanges: changes.length - listed.length } : {}),
      affectedAccesses: accesses.map((a) => ({ id: a.id, consumerTeamId: a.consumerTeamId, consumerDataProductId: a.consumerDataProductId })),
    };
  }
}

/** The changes a report lists: breaking ones first, within `MAX_LISTED_CHANGES` and the page byte limit. */
function listedChanges(changes: ContractChange[], affected: string[], budget: number): ContractChange[] {
  const ordered = [...changes.filter((c) => c.breaking), ...changes.filter((c) => !c.breaking)];
  const idsBytes = affected.reduce((sum, id) => sum + Buffer.byteLength(id) + 3, 0);
  const listed: ContractChange[] = [];
  let bytes = 0;
  for (const change of ordered) {
    if (listed.length === MAX_LISTED_CHANGES) break;
    bytes += Buffer.byteLength(JSON.stringify(change)) + (change.breaking ? idsBytes : 0);
    // At least one change is listed, whatever its size: a report that lists nothing says nothing.
    if (bytes > budget && listed.length > 0) break;
    listed.push(change);
  }
  return listed;
}
