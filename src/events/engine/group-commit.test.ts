import { RawNode, sql } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { loggedConnection, recordingQueries } from "../../../test/helpers/recorded-queries.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { resourceRepository } from "../../modules/catalog/resource-repository.js";
import { WRITE_LATER } from "../../platform/database/drivers/pg-write-behind.js";
import { GroupCommit } from "./group-commit.js";
import type { NewEventRow } from "../repository.js";

/** The indexed columns of a team row named `id`, for changes that write one. */
const columns = (id: string) => ({ title: id, ownerTeamId: null, status: null, searchText: id, json: JSON.stringify({ id }) });

describe.each(DATABASES)("group commit (%s)", (kind) => {
  const t = suiteServer(kind);

  const event = (subject: string): NewEventRow => ({
    id: crypto.randomUUID(),
    organization_id: t.organizationId,
    kind: "TeamCreatedEvent",
    subject,
    time: new Date().toISOString(),
    data: JSON.stringify({ id: subject }),
    principal: "system",
    comment: null,
  });

  it("commits changes that arrive together in one transaction, and a failing change alone neither fails nor commits the others", async () => {
    const { database } = t.server.services;
    const trace: string[] = [];
    const xids: string[] = [];
    const groups = new GroupCommit(database, () => trace.push("commit"));
    // An existing row, so that one change fails inside the database (a unique violation, which
    // aborts a PostgreSQL transaction unless the change has its own savepoint).
    await resourceRepository.insert(database.db, t.organizationId, "team", "taken", columns("taken"), new Date().toISOString());

    const change = (id: string, fail?: "after-write" | "duplicate") =>
      groups.run({
        organizationId: t.organizationId,
        work: async (trx) => {
          trace.push(`work ${id}`);
          if (kind === "postgres") xids.push(String((await sql<{ xid: string }>`select pg_current_xact_id()::text as xid`.execute(trx)).rows[0].xid));
          await resourceRepository.insert(trx, t.organizationId, "team", fail === "duplicate" ? "taken" : id, columns(id), new Date().toISOString());
          if (fail === "after-write") throw new Error(`change ${id} refused after writing`);
          return { value: id, rows: [event(id)] };
        },
      });
    const results = await Promise.allSettled([
      change("g1"),
      change("g2", "after-write"),
      change("g3"),
      change("g4", "duplicate"),
      change("g5"),
    ]);

    // The first attempt, without savepoints, stops at the first failure and keeps nothing; the group
    // then runs again with a savepoint per change, and all five share the one commit.
    expect(trace).toEqual(["work g1", "work g2", "work g1", "work g2", "work g3", "work g4", "work g5", "commit"]);
    if (kind === "postgres") expect(new Set(xids.slice(-5)).size).toBe(1);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "rejected", "fulfilled"]);
    expect((results[0] as PromiseFulfilledResult<{ value: string; appended: boolean }>).value).toEqual({ value: "g1", appended: true });
    expect((results[1] as PromiseRejectedResult).reason.message).toBe("change g2 refused after writing");

    const stored = await database.db.selectFrom("resources").select("id").where("organization_id", "=", t.organizationId).orderBy("id").execute();
    expect(stored.map((r) => r.id)).toEqual(["g1", "g3", "g5", "taken"]);
    const events = await t.server.services.events.readAfter(t.organizationId, 0);
    expect(events.map((e) => e.subject)).toEqual(["g1", "g3", "g5"]);
  });

  it("fails only its own change when a write fails as late as the commit", async () => {
    const { database } = t.server.services;
    const trace: string[] = [];
    const groups = new GroupCommit(database, () => trace.push("commit"));
    await resourceRepository.insert(database.db, t.organizationId, "team", "late-taken", columns("late-taken"), new Date().toISOString());
    // The last change's write is its last statement: on PostgreSQL it goes with the commit
    // (pg-write-behind.ts), so its unique violation is heard there, not where it was written.
    const change = (id: string, target = id) =>
      groups.run({
        organizationId: t.organizationId,
        work: async (trx) => {
          trace.push(`work ${id}`);
          await resourceRepository.insert(trx, t.organizationId, "team", target, columns(id), new Date().toISOString());
          return { value: id, rows: [event(id)] };
        },
      });
    const results = await Promise.allSettled([change("late1"), change("late2"), change("late3", "late-taken")]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect((results[2] as PromiseRejectedResult).reason.code).toMatch(/^(23505|SQLITE_CONSTRAINT_PRIMARYKEY|SQLITE_CONSTRAINT_UNIQUE)$/);
    // Nothing of the first attempt is kept; the group runs again, each change on its own.
    expect(trace).toEqual(["work late1", "work late2", "work late3", "work late1", "work late2", "work late3", "commit"]);
    const events = await t.server.services.events.readLatest(t.organizationId, 2);
    expect(events.map((e) => e.subject).sort()).toEqual(["late1", "late2"]);
  });

  it("runs each change of a group once when none fails, appending the group's events in one statement, and a lone failing change once", async () => {
    const { database } = t.server.services;
    const trace: string[] = [];
    // Every query the group sends through Kysely, to count its appends.
    const { db, sent } = recordingQueries(database.db);
    const groups = new GroupCommit({ ...database, db }, () => trace.push("commit"));
    const change = (id: string, fail = false) =>
      groups.run({
        organizationId: t.organizationId,
        work: async (trx) => {
          trace.push(`work ${id}`);
          await resourceRepository.insert(trx, t.organizationId, "team", id, columns(id), new Date().toISOString());
          if (fail) throw new Error(`change ${id} refused`);
          return { value: id, rows: [event(id)] };
        },
      });
    const before = await t.server.services.events.readLatest(t.organizationId, 1);
    await Promise.all([change("once1"), change("once2"), change("once3")]);
    expect(trace).toEqual(["work once1", "work once2", "work once3", "commit"]);
    // The append is a `sql` template (eventRepository.append): its text starts with the insert.
    const appends = sent.filter((node) => RawNode.is(node) && /^\s*insert into "events"/.test(node.sqlFragments[0]));
    expect(appends).toHaveLength(1);
    const appended = await t.server.services.events.readAfter(t.organizationId, before.at(-1)?.seq ?? 0);
    expect(appended.map((e) => e.subject)).toEqual(["once1", "once2", "once3"]);
    trace.length = 0;
    await expect(change("lone", true)).rejects.toThrow("change lone refused");
    expect(trace).toEqual(["work lone"]);
    const stored = await database.db.selectFrom("resources").select("id").where("id", "in", ["once1", "once2", "once3", "lone"]).orderBy("id").execute();
    expect(stored.map((r) => r.id)).toEqual(["once1", "once2", "once3"]);
  });

  it("answers every change of a group with the error when the transaction itself cannot commit", async () => {
    const { database } = t.server.services;
    const groups = new GroupCommit(database, () => {});
    const before = (await t.server.services.events.readAfter(t.organizationId, 0)).length;
    // A deferred constraint fails at COMMIT, after every change in the group succeeded.
    const breakCommit = async (trx: Parameters<Parameters<typeof groups.run>[0]["work"]>[0]) => {
      if (kind === "postgres") {
        await sql`create temp table if not exists must_be_unique (v int unique deferrable initially deferred)`.execute(trx);
        await sql`insert into must_be_unique values (1), (1)`.execute(trx);
      } else {
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await resourceRepository.insert(trx, "no-such-organization", "team", "orphan", columns("orphan"), new Date().toISOString());
      }
    };
    const results = await Promise.allSettled([
      groups.run({ organizationId: t.organizationId, work: async () => ({ value: 1, rows: [event("c1")] }) }),
      groups.run({
        organizationId: t.organizationId,
        work: async (trx) => {
          await breakCommit(trx);
          return { value: 2, rows: [event("c2")] };
        },
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect((await t.server.services.events.readAfter(t.organizationId, 0)).length).toBe(before);
  });

  it("opens a group's transaction with the append lock and commits it with the notification, one statement each, whatever the organization id holds", async () => {
    const { database } = t.server.services;
    const { db, statements } = loggedConnection(kind, t.database.url);
    // Organization ids are Steward's own, but the statements must not depend on that.
    const organizationId = `o'rg\\ "${crypto.randomUUID()}`;
    await database.db.insertInto("organizations").values({ id: organizationId, name: organizationId, created_at: new Date().toISOString() }).execute();
    const listener = kind === "postgres" ? new pg.Client({ connectionString: t.database.url }) : undefined;
    const payloads: string[] = [];
    try {
      if (listener) {
        await listener.connect();
        listener.on("notification", (n) => payloads.push(n.payload ?? ""));
        await listener.query("listen steward_events");
        // Another process holding the organization's append lock, taken as every Steward version
        // takes it (key space 0x5374, hashtext of the id): the group must wait for it.
        await listener.query("select pg_advisory_lock(21364, hashtext($1))", [organizationId]);
      }
      const groups = new GroupCommit({ ...database, db }, () => {});
      const committed = groups.run({ organizationId, work: async () => ({ value: 1, rows: [{ ...event("locked"), organization_id: organizationId }] }) });
      let done = false;
      void committed.then(() => (done = true));
      if (listener) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(done).toBe(false);
        await listener.query("select pg_advisory_unlock(21364, hashtext($1))", [organizationId]);
      }
      await committed;
      if (kind === "postgres") {
        expect(statements).toHaveLength(3);
        expect(statements[0]).toMatch(/^begin; select pg_advisory_xact_lock\(21364, hashtext\(/);
        expect(statements[2]).toMatch(/^select pg_notify\(.*\); commit$/);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(payloads).toEqual([organizationId]);
      } else {
        expect(statements).toEqual(["begin", expect.stringMatching(/^insert into "events"/), "commit"]);
      }
      const stored = await database.db.selectFrom("events").select("subject").where("organization_id", "=", organizationId).execute();
      expect(stored).toEqual([{ subject: "locked" }]);
    } finally {
      await listener?.end();
      await db.destroy();
      await database.db.deleteFrom("organizations").where("id", "=", organizationId).execute();
    }
  });

  it("reads a document locked on PostgreSQL and marks its update, an insert and its events to go with the commit", async () => {
    const { database } = t.server.services;
    await resourceRepository.insert(database.db, t.organizationId, "team", "sent", columns("sent"), new Date().toISOString());
    const { db, statements } = loggedConnection(kind, t.database.url);
    try {
      const groups = new GroupCommit({ ...database, db }, () => {});
      const found = await groups.run({
        organizationId: t.organizationId,
        work: async (trx) => {
          const stored = await resourceRepository.get(trx, t.organizationId, "team", "sent", { lock: kind });
          await resourceRepository.update(trx, t.organizationId, "team", "sent", { ...columns("sent"), title: "changed" }, new Date().toISOString());
          await resourceRepository.insert(trx, t.organizationId, "team", "sent-too", columns("sent-too"), new Date().toISOString());
          return { value: stored?.json, rows: [event("sent")] };
        },
      });
      expect(found.value).toBe(JSON.stringify({ id: "sent" }));
      // As Kysely sends them, before the write-behind (pg-write-behind.ts) on PostgreSQL puts the
      // marked writes into the commit's text: a change then costs no round trip of its own.
      const compact = statements.map((text) => text.replace(/\s+/g, " ").trim());
      expect(compact).toHaveLength(6);
      expect(compact[1]).toMatch(kind === "postgres" ? /^select .* from "resources" where .* for update$/ : /^select .* from "resources" where [^]*"id" = \?$/);
      expect(compact[2]).toMatch(/^update "resources" set "title" = .* \/\* write later \*\/$/);
      expect(compact[3]).toMatch(/^insert into "resources" .* \/\* write later \*\/$/);
      expect(compact[4]).toMatch(/^insert into "events" .* \/\* write later \*\/$/);
      const [row] = await database.db.selectFrom("resources").select("title").where("organization_id", "=", t.organizationId).where("id", "=", "sent").execute();
      expect(row.title).toBe("changed");
      expect(await resourceRepository.get(database.db, t.organizationId, "team", "sent-too")).toBeDefined();
    } finally {
      await db.destroy();
    }
  });
});

describe("group commit when the session ends with the commit (postgres)", () => {
  const t = suiteServer("postgres");

  it("runs no change of the group again, since the commit may have happened before the session ended", async () => {
    const { database } = t.server.services;
    const trace: string[] = [];
    const groups = new GroupCommit(database, () => trace.push("commit"));
    const change = (id: string, endSession = false) =>
      groups.run({
        organizationId: t.organizationId,
        work: async (trx) => {
          trace.push(`work ${id}`);
          await resourceRepository.insert(trx, t.organizationId, "team", id, columns(id), new Date().toISOString());
          // Marked to be written later, so it travels with the commit, where the backend then
          // ends its own session with a FATAL error, as an administrator's termination would.
          if (endSession) await sql`select pg_terminate_backend(pg_backend_pid()) ${WRITE_LATER}`.execute(trx);
          return { value: id, rows: [] };
        },
      });
    const results = await Promise.allSettled([change("ended1"), change("ended2", true)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect((results[0] as PromiseRejectedResult).reason.code).toBe("57P01");
    expect(trace).toEqual(["work ended1", "work ended2"]);
    const stored = await database.db.selectFrom("resources").select("id").where("id", "in", ["ended1", "ended2"]).execute();
    expect(stored).toEqual([]);
  });
});
