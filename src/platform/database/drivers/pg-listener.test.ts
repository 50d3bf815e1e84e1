import pg from "pg";
import { describe, expect, it } from "vitest";
import { until } from "../../../../test/consumer/helpers.js";
import { createTestDatabase } from "../../../../test/helpers/databases.js";
import { perSuite } from "../../../../test/helpers/per-suite.js";
import { PostgresListener } from "./pg-listener.js";

const quiet = { warn() {} } as never;

describe("the process's notification listener (postgres)", () => {
  const database = perSuite(() => createTestDatabase("postgres"), (created) => created.drop());

  it("hands each subscriber its channels, tells them when the connection is lost, and listens again after it", async () => {
    const channel = `steward_test_${Date.now()}`;
    const heard: string[] = [];
    const states: string[] = [];
    const listener = new PostgresListener(database.url, quiet);
    listener.subscribe({ channels: [channel], notified: (_c, payload) => heard.push(payload), lost: () => states.push("lost"), connected: () => states.push("connected") });
    listener.subscribe({ channels: ["steward_other_channel"], notified: () => heard.push("wrong subscriber") });
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await listener.start();
      await other.query("select pg_notify($1, 'one')", [channel]);
      listener.notify(channel, "to itself");
      await until(() => heard.length === 2, 5_000, "both notifications");
      expect(heard).toEqual(["one", "to itself"]);

      // The server ends the listener's connection, as a restart or an operator would.
      await other.query("select pg_terminate_backend($1)", [(listener as unknown as { client: { processID: number } }).client.processID]);
      await until(() => states.length === 3, 5_000, "the reconnect");
      expect(states).toEqual(["connected", "lost", "connected"]);
      await other.query("select pg_notify($1, 'two')", [channel]);
      await until(() => heard.length === 3, 5_000, "a notification after the reconnect");
      expect(heard.at(-1)).toBe("two");
    } finally {
      await other.end();
      await listener.stop();
    }
    expect(states.at(-1)).toBe("lost");
  }, 15_000);

  it("sends notifications one after another on its connection, in order, never two queries at once", async () => {
    const channel = `steward_test_order_${Date.now()}`;
    const heard: string[] = [];
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on("warning", onWarning);
    const listener = new PostgresListener(database.url, quiet);
    listener.subscribe({ channels: [channel], notified: (_c, payload) => heard.push(payload) });
    try {
      await listener.start();
      const sent = Array.from({ length: 50 }, (_, i) => String(i));
      for (const payload of sent) listener.notify(channel, payload);
      await until(() => heard.length === sent.length, 5_000, "every notification");
      expect(heard).toEqual(sent);
      expect(warnings.filter((w) => w.includes("already executing a query"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await listener.stop();
    }
  }, 15_000);
});
