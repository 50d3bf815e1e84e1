import { afterAll, beforeAll } from "vitest";

/**
 * What `start` gives, started before the tests of the current `describe`, then prepared by `ready`
 * (which may already use the object answered), and ended by `end` after them. The object answered
 * reads through to the started one at each use, so only hooks and tests may use it; hooks
 * registered after this call run after `start` and `ready`.
 */
export function perSuite<T extends object>(start: () => Promise<T>, end: (started: T) => Promise<void>, ready?: (started: T) => Promise<void>): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    await ready?.(started);
  });
  afterAll(async () => {
    if (started !== undefined) await end(started);
  });
  return new Proxy({} as T, {
    get(_, property) {
      if (started === undefined) throw new Error("used before the tests of its describe start");
      return Reflect.get(started, property);
    },
  });
}
