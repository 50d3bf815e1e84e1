import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startServer } from "../server.js";
import { loadConfig } from "./config.js";
import { logDestination } from "./log.js";

describe("the log's destination", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("has written each line by the time the call that logged it returns", () => {
    dir = mkdtempSync(join(tmpdir(), "steward-log-"));
    const file = join(dir, "log");
    const fd = openSync(file, "w");
    try {
      const log = pino({ base: undefined }, logDestination(fd));
      for (let i = 0; i < 100; i++) {
        log.info({ i }, "line");
        // Read at once, on this thread: nothing else has had a turn to write it.
        expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(i + 1);
      }
    } finally {
      closeSync(fd);
    }
  });

  it("is where the server writes its log unless it is given a logger", async () => {
    const config = loadConfig({}, { databaseUrl: "sqlite::memory:", port: 0, host: "127.0.0.1", bootstrap: false, logLevel: "silent" });
    const server = await startServer(config);
    try {
      const stream = (server.app.log as unknown as Record<symbol, { sync?: boolean; fd?: number }>)[pino.symbols.streamSym];
      expect(stream).toMatchObject({ sync: true, fd: 1 });
    } finally {
      await server.close();
    }
  });
});
