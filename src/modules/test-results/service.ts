import { isDeepStrictEqual } from "node:util";
import { v7 as uuidv7 } from "uuid";
import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { conflict, invalid, notFound } from "../../platform/errors.js";
import type { EventLog } from "../../events/log.js";
import { policy } from "../../policies/index.js";
import { checkDocumentSize, type DocumentLimits } from "../catalog/document-limits.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import { testResultRepository, type TestResultFilter } from "./repository.js";
import type { TestResults } from "./shapes.js";
import { withMembers } from "../../platform/objects.js";

/** How many of a contract's newest runs the per-server summary looks at. */
const LATEST_WINDOW = 1000;

/**
 * Tools send every unset member as null; Steward keeps a run without them, as clients of the
 * reference product expect absent members rather than nulls (in the run, its checks and logs).
 * An object without nulls is kept as it is, and one with nulls copied member by member: a run of
 * a few hundred thousand checks copied through `Object.entries` held the event loop for tenths of
 * a second, and deleting members in place left objects that serialize several times slower.
 */
function withoutNulls<T extends object>(object: T): T {
  const members = object as Record<string, unknown>;
  let hasNull = false;
  for (const key in members) {
    if (members[key] === null) {
      hasNull = true;
      break;
    }
  }
  if (!hasNull) return object;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(members)) {
    const value = members[key];
    if (value === null) continue;
    // Defined rather than assigned: a member named `__proto__` stays a member (see withMembers).
    if (key === "__proto__") Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
    else copy[key] = value;
  }
  return copy as T;
}

function normalize(run: TestResults): TestResults {
  const clean = withoutNulls(run);
  if (Array.isArray(clean.checks)) clean.checks = clean.checks.map(withoutNulls);
  if (Array.isArray(clean.logs)) clean.logs = clean.logs.map(withoutNulls);
  return clean;
}

/** A run as lists show it: everything but its (possibly large) checks and logs. */
function summarize(run: TestResults): Omit<TestResults, "checks" | "logs"> {
  const { checks: _checks, logs: _logs, ...summary } = run;
  return summary;
}

export class TestResultService {
  constructor(
    private readonly database: Database,
    private readonly events: EventLog,
    private readonly clock: Clock,
    private readonly limits: DocumentLimits,
  ) {}

  /**
   * Records a published run. Its id is the body's `id`, else the `runId` tools send, else a new
   * one. Publishing the same run again answers it unchanged; another run under a used id is a 409.
   * Answers the run with its JSON text as stored, which the answer sends as it is.
   */
  async publish(p: Principal, body: Record<string, unknown>): Promise<{ run: TestResults; json: string }> {
    const idFromRun = typeof body.runId === "string" && body.runId !== "" && !body.runId.includes("/") && body.runId.length <= 256 ? body.runId : undefined;
    const run = normalize(withMembers(body, { id: (body.id as string | undefined) ?? idFromRun ?? uuidv7() }) as TestResults);
    // Stringified once: measured against the limit before anything else, then stored and answered.
    const json = JSON.stringify(run);
    checkDocumentSize("Test run", json, this.limits);
    return this.events.transaction(p, async (trx, emit) => {
      const contract = await resourceRepository.get(trx, p.organizationId, "datacontract", run.dataContractId);
      if (!contract) {
        throw invalid("The test results name no data contract of this organization.", [
          { field: "dataContractId", message: `no data contract '${run.dataContractId}' exists in this organization` },
        ]);
      }
      policy.writeOwned(p, "test results of a data contract", [contract.ownerTeamId]);
      const existing = await testResultRepository.get(trx, p.organizationId, run.id);
      if (existing) {
        // The same text is the same run; only text that differs is parsed to compare members in any order.
        if (existing.doc === json || isDeepStrictEqual(JSON.parse(existing.doc), run)) return { run, json: existing.doc };
        throw conflict(`Test results '${run.id}' exist already with other content. Publish a new run under a new id.`);
      }
      await testResultRepository.insert(trx, {
        organization_id: p.organizationId,
        id: run.id,
        data_contract_id: run.dataContractId,
        server: run.server ?? null,
        result: run.result,
        owner_team_id: contract.ownerTeamId,
        summary: JSON.stringify(summarize(run)),
        doc: json,
        created_at: this.clock.now().toISOString(),
      });
      emit("TestResultsCreatedEvent", run.id, { status: run.result });
      return { run, json };
    });
  }

  /**
   * Summaries as stored JSON text, newest first; `filter.limit` is one more than the page for the
   * next-page probe, and `cut` says the page ended at PAGE_LIMIT_BYTES with more to follow.
   */
  async list(p: Principal, filter: TestResultFilter): Promise<{ summaries: string[]; cut: boolean }> {
    return testResultRepository.list(this.database.db, p.organizationId, filter, this.limits.pageBytes);
  }

  /** One run as its stored JSON text: a big run is neither parsed nor serialized again to be read. */
  async getJson(p: Principal, id: string): Promise<string> {
    const row = await testResultRepository.get(this.database.db, p.organizationId, id);
    if (!row) throw notFound("Test results", id);
    return row.doc;
  }

  async delete(p: Principal, id: string): Promise<void> {
    await this.events.transaction(p, async (trx, emit) => {
      const row = await testResultRepository.get(trx, p.organizationId, id);
      if (!row) throw notFound("Test results", id);
      policy.writeOwned(p, "test results of a data contract", [row.owner_team_id]);
      await testResultRepository.delete(trx, p.organizationId, id);
      emit("TestResultsDeletedEvent", id);
    });
  }

  /** A contract's newest run, and the newest per server it was tested against. */
  async latestOf(p: Principal, dataContractId: string) {
    if (!(await resourceRepository.get(this.database.db, p.organizationId, "datacontract", dataContractId))) throw notFound("Data contract", dataContractId);
    const rows = await testResultRepository.newestOfContract(this.database.db, p.organizationId, dataContractId, LATEST_WINDOW);
    const servers = new Map<string | null, { server: string | null; id: string; result: string; publishedAt: string }>();
    for (const row of rows) {
      if (!servers.has(row.server)) servers.set(row.server, { server: row.server, id: row.id, result: row.result, publishedAt: row.created_at });
    }
    return { dataContractId, latest: rows[0] ? (JSON.parse(rows[0].summary) as Record<string, unknown>) : null, servers: [...servers.values()] };
  }
}
