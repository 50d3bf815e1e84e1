import type { Kysely } from "kysely";
import type { DB, Database, Executor } from "../../platform/database/index.js";
import { refusedByPostgres } from "../../platform/database/drivers/pg-write-behind.js";
import { onOneConnection, type OnOneConnection } from "../../platform/database/drivers/one-connection.js";
import { transactionControl } from "../../platform/database/drivers/transaction-control.js";
import { eventRepository, type NewEventRow } from "../repository.js";

/**
 * One change waiting to be committed: its work, and the event rows that work produced (built by
 * the caller from what the work emitted, once the work has run).
 */
export interface Member<T> {
  organizationId: string;
  work(trx: Executor): Promise<{ value: T; rows: NewEventRow[] }>;
}

type Outcome = { ok: true; value: unknown; appended: boolean } | { ok: false; error: unknown };

interface Waiting {
  member: Member<unknown>;
  settle(outcome: Outcome): void;
}

/** At most this many changes share a transaction, so one transaction stays short. */
const MAX_GROUP = 64;

/** The savepoint each change of an isolated re-run runs in. */
const SAVEPOINT = "change";

/**
 * Group commit: changes that arrive while a transaction is being committed wait and then share
 * the next transaction, so one durable commit (one fsync) serves many requests. Each change stays
 * atomic on its own: a change that fails is reported to its own caller alone, and the others in
 * the group still commit, with their events (`commitGroup` says how).
 *
 * Groups are formed per queue: on SQLite one queue (it has one writer anyway); on PostgreSQL one
 * queue per organization, whose transaction first takes the organization's append lock, so the
 * commit order of its events stays their position order (docs/events.md). Different
 * organizations commit in parallel.
 */
export class GroupCommit {
  private readonly queues = new Map<string, Waiting[]>();

  /** A connection for each attempt, with the instance bound to it kept (one-connection.ts). */
  private readonly onOneConnection: OnOneConnection;

  constructor(
    private readonly database: Database,
    /** Told after each commit which organizations appended events. */
    private readonly committed: (organizationIds: Set<string>) => void,
  ) {
    this.onOneConnection = onOneConnection(database);
  }

  /** Runs `member` in the next group of its queue; resolves once that group's transaction committed. */
  run<T>(member: Member<T>): Promise<{ value: T; appended: boolean }> {
    const key = this.database.dialect === "postgres" ? member.organizationId : "";
    return new Promise((resolve, reject) => {
      const settle = (outcome: Outcome) => (outcome.ok ? resolve({ value: outcome.value as T, appended: outcome.appended }) : reject(outcome.error));
      let queue = this.queues.get(key);
      if (queue) {
        queue.push({ member, settle });
        return;
      }
      queue = [{ member, settle }];
      this.queues.set(key, queue);
      // Start on the next turn of the event loop: requests read from the network in this turn join.
      setImmediate(() => void this.drain(key));
    });
  }

  /** Commits the queue's waiting changes, group after group, until none are left. */
  private async drain(key: string): Promise<void> {
    const queue = this.queues.get(key)!;
    while (queue.length > 0) {
      const group = queue.splice(0, MAX_GROUP);
      await this.commitGroup(group);
    }
    this.queues.delete(key);
  }

  /**
   * Most groups have no failing change, so they first run without savepoints: on PostgreSQL a
   * savepoint and its release are two more round trips per change, which cost more than the
   * change's own statements. When a change fails in a group of several, nothing of that attempt is
   * kept: the transaction is rolled back and the whole group runs again, each change in its own
   * savepoint, so each is judged on exactly what the others committed.
   */
  private async commitGroup(group: Waiting[]): Promise<void> {
    if ((await this.attempt(group, false)) === "isolate") await this.attempt(group, true);
  }

  private attempt(group: Waiting[], isolated: boolean): Promise<"settled" | "isolate"> {
    // One connection for the whole attempt, its transaction controlled by hand (`begin` and
    // `commit` carry more than themselves on PostgreSQL, eventRepository.begin says why).
    return this.onOneConnection((conn) => this.attemptOn(conn, group, isolated))
      .catch((error: unknown) => {
        // No connection to be had: nothing of the group ran.
        for (const waiting of group) waiting.settle({ ok: false, error });
        return "settled" as const;
      });
  }

  private async attemptOn(conn: Kysely<DB>, group: Waiting[], isolated: boolean): Promise<"settled" | "isolate"> {
    const outcomes: Outcome[] = [];
    const appendedBy = new Set<string>();
    const { dialect } = this.database;
    try {
      // The queue is per organization on PostgreSQL: one lock for the whole group, taken before
      // any change's row locks, so groups of different processes cannot deadlock on each other.
      await eventRepository.begin(conn, dialect, group[0].member.organizationId);
      // Without savepoints the group's events are appended together at the end, in the order of
      // the changes: one statement for the group rather than one per change.
      const appending: NewEventRow[] = [];
      for (const { member } of group) {
        if (isolated) await transactionControl.savepoint(conn, SAVEPOINT);
        try {
          const { value, rows } = await member.work(conn);
          if (isolated) {
            await eventRepository.append(conn, rows);
            await transactionControl.release(conn, SAVEPOINT);
          } else {
            // Not push(...rows): a change may emit more events than a call takes arguments.
            for (const row of rows) appending.push(row);
          }
          if (rows.length > 0) appendedBy.add(member.organizationId);
          outcomes.push({ ok: true, value, appended: rows.length > 0 });
        } catch (error) {
          if (!isolated) return this.abandon(conn, group, error);
          await transactionControl.rollbackTo(conn, SAVEPOINT);
          await transactionControl.release(conn, SAVEPOINT);
          outcomes.push({ ok: false, error });
        }
      }
      if (appending.length > 0) {
        try {
          await eventRepository.append(conn, appending);
        } catch (error) {
          return this.abandon(conn, group, error);
        }
      }
      try {
        await eventRepository.commit(conn, dialect, appendedBy);
      } catch (error) {
        // On PostgreSQL the changes' last writes go with the commit (pg-write-behind.ts): a refusal
        // from the server may be any change's, and nothing was committed, so the group runs again
        // as after a failed change. Isolated, every write was sent with its savepoint's release, so
        // the refusal is the commit's own. Only a session that is still there can be trusted to have
        // committed nothing: an error that ends the session (a FATAL one, such as an administrator's
        // termination) may come after the commit itself, so then the outcome is unknown, as when the
        // connection is lost, and the group is not run again (below).
        if (!isolated && refusedByPostgres(error) && (await rolledBack(conn))) return this.abandon(conn, group, error, true);
        throw error;
      }
    } catch (error) {
      // The transaction itself failed (begin, a savepoint, the commit): nothing of the group was
      // committed (or, when the session was lost at the commit, whether it was is unknown), and
      // every change in it is told so; none runs again. After a failed `begin` there may be no
      // transaction to roll back; that is no error worth more than this.
      await rolledBack(conn);
      for (const waiting of group) waiting.settle({ ok: false, error });
      return "settled";
    }
    if (appendedBy.size > 0) this.committed(appendedBy);
    group.forEach((waiting, i) => waiting.settle(outcomes[i]));
    return "settled";
  }

  /** A failure in an attempt without savepoints: nothing of it is kept, and the group runs again isolated, unless it is a group of one. */
  private async abandon(conn: Kysely<DB>, group: Waiting[], error: unknown, alreadyRolledBack = false): Promise<"settled" | "isolate"> {
    if (!alreadyRolledBack) await rolledBack(conn);
    if (group.length > 1) return "isolate";
    // A group of one: its failure is its own, and nothing else was in the transaction.
    group[0].settle({ ok: false, error });
    return "settled";
  }
}

/** Rolls the connection's transaction back; false when that failed (the session is gone). */
function rolledBack(conn: Kysely<DB>): Promise<boolean> {
  return transactionControl.rollback(conn).then(
    () => true,
    () => false,
  );
}
