import { hashSecret } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { tooManyRequests } from "../../platform/errors.js";
import { throttleRepository } from "./throttle-repository.js";

/**
 * Sign-in throttling (docs/product.md §2). Failures are counted in the database, so every process
 * sharing it sees the same counts and no request can flush them. Three counters, one window:
 *
 * | counter | counts failures of                  | at the limit, refuses                           |
 * |---------|-------------------------------------|-------------------------------------------------|
 * | pair    | one client guessing one address     | that client, for that address                   |
 * | client  | one client, whatever the address    | that client, for every address                  |
 * | address | every client guessing one address   | only clients that have failed on that address   |
 *
 * The last row is what keeps strangers from locking a person out: once many clients guess at an
 * address, each of them is stopped, yet a client that has not failed on it still signs in.
 */
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;

export type Counter = "pair" | "client" | "address";

export const THROTTLE_RULES: ReadonlyArray<{ counter: Counter; limit: number; onlyClientsThatFailed: boolean }> = [
  { counter: "pair", limit: 5, onlyClientsThatFailed: false },
  { counter: "client", limit: 30, onlyClientsThatFailed: false },
  { counter: "address", limit: 10, onlyClientsThatFailed: true },
];

/** The rule that refuses a sign-in with these recent failure counts, if any. */
export function refusingRule(counts: Record<Counter, number>) {
  return THROTTLE_RULES.find((rule) => counts[rule.counter] >= rule.limit && (!rule.onlyClientsThatFailed || counts.pair > 0));
}

function keys(email: string, client: string): Record<Counter, string> {
  return {
    pair: hashSecret(`pair:${email} ${client}`),
    client: hashSecret(`client:${client}`),
    address: hashSecret(`address:${email}`),
  };
}

export class SignInThrottle {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  private windowStart(): string {
    return new Date(this.clock.now().getTime() - THROTTLE_WINDOW_MS).toISOString();
  }

  /** Throws 429 when this client may not try this address now. */
  async check(email: string, client: string): Promise<void> {
    const k = keys(email, client);
    const found = await throttleRepository.counts(this.database.db, Object.values(k), this.windowStart());
    const entry = (counter: Counter) => found.get(k[counter]);
    const counts = { pair: entry("pair")?.failures ?? 0, client: entry("client")?.failures ?? 0, address: entry("address")?.failures ?? 0 };
    const rule = refusingRule(counts);
    if (!rule) return;
    const ends = Date.parse(entry(rule.counter)!.windowStartedAt) + THROTTLE_WINDOW_MS;
    const retry = Math.max(1, Math.ceil((ends - this.clock.now().getTime()) / 1000));
    const wait = retry < 90 ? `${retry} seconds` : `${Math.ceil(retry / 60)} minutes`;
    throw tooManyRequests(`Too many failed sign-ins. Try again in ${wait}.`, retry);
  }

  async failed(email: string, client: string): Promise<void> {
    const now = this.clock.now().toISOString();
    const since = this.windowStart();
    await this.database.db.transaction().execute(async (trx) => {
      for (const key of Object.values(keys(email, client))) await throttleRepository.count(trx, key, now, since);
      await throttleRepository.deleteOlderThan(trx, since);
    });
  }

  /** A success clears only this client's count for the address: strangers' failures still count. */
  async succeeded(email: string, client: string): Promise<void> {
    await throttleRepository.forget(this.database.db, keys(email, client).pair);
  }
}
