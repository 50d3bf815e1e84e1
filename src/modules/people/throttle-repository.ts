import type { Executor } from "../../platform/database/index.js";

/** SQL about failed sign-ins, counted per key in fixed windows; shared by every process on the database. */
export const throttleRepository = {
  /** Failures counted under each key whose window started after `since`. */
  async counts(ex: Executor, keys: string[], since: string): Promise<Map<string, { failures: number; windowStartedAt: string }>> {
    const rows = await ex
      .selectFrom("sign_in_failures")
      .select(["key", "failures", "window_started_at"])
      .where("key", "in", keys)
      .where("window_started_at", ">", since)
      .execute();
    return new Map(rows.map((r) => [r.key, { failures: Number(r.failures), windowStartedAt: r.window_started_at }]));
  },

  /** Counts one failure under `key`: a window that started at or before `since` is over, and a new one starts `now`. */
  async count(ex: Executor, key: string, now: string, since: string): Promise<void> {
    await ex
      .insertInto("sign_in_failures")
      .values({ key, failures: 1, window_started_at: now })
      .onConflict((oc) =>
        oc.column("key").doUpdateSet((eb) => ({
          failures: eb.case().when("sign_in_failures.window_started_at", "<=", since).then(1).else(eb("sign_in_failures.failures", "+", 1)).end(),
          window_started_at: eb.case().when("sign_in_failures.window_started_at", "<=", since).then(now).else(eb.ref("sign_in_failures.window_started_at")).end(),
        })),
      )
      .execute();
  },

  async forget(ex: Executor, key: string): Promise<void> {
    await ex.deleteFrom("sign_in_failures").where("key", "=", key).execute();
  },

  /** Drops windows that are over, so the table holds only the last window's failures. */
  async deleteOlderThan(ex: Executor, since: string): Promise<void> {
    await ex.deleteFrom("sign_in_failures").where("window_started_at", "<=", since).execute();
  },
};
