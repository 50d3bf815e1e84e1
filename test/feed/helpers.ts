/**
 * Shared machinery of the event-feed tests: real `steward serve` processes, concurrent writers
 * that record what the server acknowledged, a feed consumer, and the checks that tie the two.
 */
import { expect } from "vitest";
import { serve, type ServeProcess } from "../helpers/cli.js";
import { request, type ApiResponse } from "../helpers/server.js";

export interface FeedEvent {
  id: string;
  type: string;
  subject: string;
  data: { id: string };
}

/** The event kind of an envelope: `com.service.events.TeamCreatedEvent` → `TeamCreatedEvent`. */
export const kindOf = (event: FeedEvent): string => event.type.slice(event.type.lastIndexOf(".") + 1);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The organization key the first start on an empty database made. */
export function bootstrapKey(process: ServeProcess): string {
  const key = /(stw_[A-Za-z0-9_-]{43})/.exec(process.firstStart())?.[1];
  if (!key) throw new Error(`no bootstrap key in the first-start file; the output:\n${process.output()}`);
  return key;
}

/**
 * `steward serve` processes started by one test file. `stopAll` (in afterAll) kills whatever is
 * still running, so a failing test never leaves a child behind.
 */
export class Processes {
  private readonly running = new Set<ServeProcess>();

  async start(env: Record<string, string>): Promise<ServeProcess> {
    const started = await serve(env);
    this.running.add(started);
    void started.exited.then(() => this.running.delete(started));
    return started;
  }

  /** SIGTERM, and the exit code (SIGKILL and a failure if it does not exit within `timeoutMs`). */
  async stop(process: ServeProcess, timeoutMs = 10_000): Promise<number | null> {
    process.child.kill("SIGTERM");
    return withTimeout(process.exited, timeoutMs, () => process.child.kill("SIGKILL"), "the process did not exit after SIGTERM");
  }

  /** kill -9: no shutdown code runs. */
  async crash(process: ServeProcess): Promise<void> {
    process.child.kill("SIGKILL");
    await process.exited;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.running].map((p) => this.crash(p)));
  }
}

/** Resolves like `promise`, or runs `onTimeout` and rejects after `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => void, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${message} (${ms} ms)`));
    }, ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** GET /api/events once; throws on anything but 200. */
export async function readBatch(url: string, key: string, lastEventId?: string, longPolling = false): Promise<FeedEvent[]> {
  const query = new URLSearchParams({ longPolling: String(longPolling) });
  if (lastEventId) query.set("lastEventId", lastEventId);
  const res = await request<FeedEvent[]>(url, "GET", `/api/events?${query}`, undefined, { key });
  if (res.status !== 200) throw new Error(`GET /api/events answered ${res.status}: ${res.text}`);
  return res.body;
}

/** The organization's whole log as one process serves it, batch after batch until `[]`. */
export async function readAll(url: string, key: string, maxBatches = 1000): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (let i = 0; i < maxBatches; i++) {
    const batch = await readBatch(url, key, events.at(-1)?.id);
    if (batch.length === 0) return events;
    events.push(...batch);
  }
  throw new Error(`the log did not end within ${maxBatches} batches`);
}

/**
 * A consumer following the feed while it is written: `longPolling=false`, each request naming the
 * last id it saw, alternating between `urls`. Stops once `done()` holds and a read comes back empty.
 */
export async function follow(urls: string[], key: string, done: () => boolean, timeoutMs: number): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; Date.now() < deadline; i++) {
    const writersDone = done(); // before the read: an empty read after the last write means the end
    const batch = await readBatch(urls[i % urls.length], key, events.at(-1)?.id);
    events.push(...batch);
    if (batch.length === 0) {
      if (writersDone) return events;
      await sleep(10);
    }
  }
  throw new Error(`the consumer did not catch up within ${timeoutMs} ms (saw ${events.length} events)`);
}

export type Outcome =
  /** 2xx: the change and its events committed. */
  | "acknowledged"
  /** No answer (the connection broke): it may or may not have committed. */
  | "unknown";

/** One change a writer made, in the order it made them. */
export interface Change {
  writer: number;
  subject: string;
  method: "PUT" | "DELETE";
  /** For PUT: the name sent. */
  name?: string;
  /** The event this change emits if it commits. */
  kind: "TeamCreatedEvent" | "TeamUpdatedEvent" | "TeamDeletedEvent";
  outcome: Outcome;
}

export interface WriteLoad {
  urls: string[];
  key: string;
  writers: number;
  changesPerWriter: number;
  /** Teams each writer cycles through (a writer owns its teams, so its changes to them are ordered). */
  teamsPerWriter?: number;
  /** Called after each acknowledged change, with how many there are so far. */
  onAcknowledged?: (count: number) => void;
}

/**
 * Concurrent writers, writer `w` sending through `urls[w % urls.length]`. Each writer changes only
 * its own teams, one change at a time: a team's k-th change is a PUT with a new name, except every
 * fourth, which deletes it. A writer stops at its first change that is not acknowledged (the
 * server died), so each writer ends with at most one change of unknown outcome and the state of
 * everything it wrote before is known. Any other answer fails the load.
 */
export async function runWriters(load: WriteLoad): Promise<Change[]> {
  const teams = load.teamsPerWriter ?? 5;
  let acknowledgedSoFar = 0;
  const perWriter = await Promise.all(
    Array.from({ length: load.writers }, async (_, writer) => {
      const url = load.urls[writer % load.urls.length];
      const exists = new Set<string>();
      const changes: Change[] = [];
      for (let i = 0; i < load.changesPerWriter; i++) {
        const subject = `w${writer}-team${i % teams}`;
        const round = Math.floor(i / teams);
        const remove = round % 4 === 3 && exists.has(subject);
        const name = `${subject} #${i}`;
        const change: Change = remove
          ? { writer, subject, method: "DELETE", kind: "TeamDeletedEvent", outcome: "unknown" }
          : { writer, subject, method: "PUT", name, kind: exists.has(subject) ? "TeamUpdatedEvent" : "TeamCreatedEvent", outcome: "unknown" };
        changes.push(change);
        let res: ApiResponse;
        try {
          res = await request(url, change.method, `/api/teams/${subject}`, remove ? undefined : { name }, { key: load.key });
        } catch {
          break; // the server went away mid-request
        }
        if (res.status === 503) break; // it is shutting down; nothing was written
        if (res.status >= 300) throw new Error(`${change.method} /api/teams/${subject} answered ${res.status}: ${res.text}`);
        change.outcome = "acknowledged";
        load.onAcknowledged?.(++acknowledgedSoFar);
        if (remove) exists.delete(subject);
        else exists.add(subject);
      }
      return changes;
    }),
  );
  return perWriter.flat();
}

export const acknowledged = (changes: Change[]) => changes.filter((c) => c.outcome === "acknowledged");

/**
 * The guarantees that tie the feed to the changes:
 * - every event id appears once;
 * - per team, the feed's events are exactly the acknowledged changes' events in the order the
 *   writer made them, followed by the event of the writer's unknown-outcome change if (and only
 *   if) that change committed.
 * Returns, per team, the changes that took effect.
 */
export function expectFeedMatchesChanges(events: FeedEvent[], changes: Change[]): Map<string, Change[]> {
  expect(new Set(events.map((e) => e.id)).size, "duplicate event ids").toBe(events.length);
  for (const event of events) expect(event.data.id).toBe(event.subject);

  const seen = new Map<string, string[]>();
  for (const event of events) seen.set(event.subject, [...(seen.get(event.subject) ?? []), kindOf(event)]);
  const made = new Map<string, Change[]>();
  for (const change of changes) made.set(change.subject, [...(made.get(change.subject) ?? []), change]);

  const effective = new Map<string, Change[]>();
  for (const subject of new Set([...seen.keys(), ...made.keys()])) {
    const kinds = seen.get(subject) ?? [];
    const mine = made.get(subject) ?? [];
    const sure = mine.filter((c) => c.outcome === "acknowledged");
    const maybe = mine.filter((c) => c.outcome === "unknown");
    expect(maybe.length, `${subject}: more than one change of unknown outcome`).toBeLessThanOrEqual(1);
    const committed = kinds.length === sure.length + 1 && maybe.length === 1 ? [...sure, ...maybe] : sure;
    expect(kinds, `events of ${subject}`).toEqual(committed.map((c) => c.kind));
    effective.set(subject, committed);
  }
  return effective;
}

/**
 * Replays the feed into the set of teams it describes and checks it against the stored teams:
 * the same ids, and each team's name is the one its last committed PUT sent.
 */
export async function expectTeamsMatchReplay(url: string, key: string, effective: Map<string, Change[]>): Promise<void> {
  const expected = new Map<string, string>();
  for (const [subject, committed] of effective) {
    const last = committed.at(-1);
    if (last?.method === "PUT") expected.set(subject, last.name!);
  }
  const stored = new Map<string, string>();
  for (let page = 0; page < 100; page++) {
    const res = await request<Array<{ id: string; name: string }>>(url, "GET", `/api/teams?p=${page}`, undefined, { key });
    expect(res.status).toBe(200);
    for (const team of res.body) stored.set(team.id, team.name);
    if (!res.headers.get("link")) break;
  }
  expect(new Map([...stored].sort()), "stored teams vs the replay of the feed").toEqual(new Map([...expected].sort()));
}
