import type { ConfigOverrides } from "../../src/platform/config.js";
import type { Clock } from "../../src/platform/clock.js";
import type { DatabaseKind } from "./databases.js";
import { perSuite } from "./per-suite.js";
import { startTestServer, type TestServer } from "./server.js";

export interface SuiteServerOptions {
  /** Teams created first, by id and name. */
  teams?: Record<string, string>;
  /** What else the tests start from, run once the teams exist. */
  setup?: (t: TestServer) => Promise<void>;
  overrides?: ConfigOverrides;
  clock?: Clock;
}

/**
 * The test server of the tests of one `describe`: started over a fresh database before them, with
 * `options.teams` and then `options.setup`, and closed after them (test/helpers/per-suite.ts).
 */
export function suiteServer(kind: DatabaseKind, options: SuiteServerOptions = {}): TestServer {
  return perSuite(
    () => startTestServer(kind, options.overrides, options.clock),
    (t) => t.close(),
    async (t) => {
      for (const [id, name] of Object.entries(options.teams ?? {})) await putOrFail(t, `/api/teams/${id}`, { name });
      await options.setup?.(t);
    },
  );
}

/** A new key of scope team for `teamId`. */
export async function createTeamKey(t: TestServer, teamId: string, displayName?: string): Promise<string> {
  return (await t.api("POST", "/api/api-keys", { displayName, scope: "team", teamId })).body.key;
}

/** PUTs a document the tests start from; anything but 200 stops the setup. */
export async function putOrFail(t: TestServer, path: string, body: unknown): Promise<void> {
  const res = await t.api("PUT", path, body);
  if (res.status !== 200) throw new Error(`PUT ${path}: ${res.status} ${res.text}`);
}
