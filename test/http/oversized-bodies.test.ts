/**
 * A body over BODY_LIMIT_BYTES gets its 413 to the client however it is sent (docs/security.md,
 * "Request bodies"): curl, a real client, sends twenty oversized bodies with and without
 * `Expect: 100-continue`, with a declared Content-Length and chunked, and must read the 413
 * problem every time, never a reset connection.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DRAIN_MIN_BYTES } from "../../src/platform/http/oversized-bodies.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const LIMIT = 1024 * 1024;

interface CurlResult {
  exit: number;
  status: string;
  body: string;
  /** curl's verbose trace: what it sent and received. */
  trace: string;
}

function curl(args: string[]): Promise<CurlResult> {
  return new Promise((resolve) => {
    execFile("curl", ["-sS", "-v", "-o", "-", "-w", "\n%{http_code}", "--max-time", "20", ...args], { maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      const at = stdout.lastIndexOf("\n");
      resolve({ exit: error ? Number((error as { code?: number }).code ?? 1) : 0, status: stdout.slice(at + 1), body: stdout.slice(0, at), trace: stderr });
    });
  });
}

describe("oversized request bodies reach their 413", () => {
  let t: TestServer;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    t = await startTestServer("sqlite", { bodyLimitBytes: LIMIT });
    dir = mkdtempSync(join(tmpdir(), "steward-oversized-"));
    file = join(dir, "11mb.json");
    writeFileSync(file, JSON.stringify({ name: "Huge", description: "x".repeat(11 * 1024 * 1024) }));
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const modes: Array<[string, string[]]> = [
    ["declared, Expect: 100-continue", ["-H", "expect: 100-continue"]],
    ["declared, no Expect", ["-H", "expect:"]],
    ["chunked, Expect: 100-continue", ["-H", "transfer-encoding: chunked", "-H", "expect: 100-continue"]],
    ["chunked, no Expect", ["-H", "transfer-encoding: chunked", "-H", "expect:"]],
  ];

  it("answers 413 with the problem to twenty curl uploads, each way five times", async () => {
    const results: string[] = [];
    for (let round = 0; round < 5; round++) {
      for (const [mode, headers] of modes) {
        const res = await curl([
          "-X", "PUT", "-H", `x-api-key: ${t.key}`, "-H", "content-type: application/json", ...headers, "--data-binary", `@${file}`, `${t.url}/api/teams/huge`,
        ]);
        // A declared body over the limit is refused before the client sends it: no 100 Continue.
        const continued = mode.startsWith("declared") && /< HTTP\/1\.1 100/.test(res.trace) ? " after 100 Continue" : "";
        results.push(`${mode}: ${res.status} exit ${res.exit}${continued}${res.status === "413" && res.body.includes("BODY_LIMIT_BYTES") ? "" : ` ${res.body.slice(0, 200)}`}`);
      }
    }
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => `${modes[i % 4]![0]}: 413 exit 0`));
    // The server is still there for everyone else.
    expect((await t.api("GET", "/api/teams/huge")).status).toBe(404);
  });

  it("answers a declared Content-Length over the limit without reading any of the body", async () => {
    const { hostname, port } = new URL(t.url);
    const socket = connect(Number(port), hostname);
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString()));
    await new Promise((resolve) => socket.on("connect", resolve));
    socket.write(`PUT /api/teams/huge HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\ncontent-type: application/json\r\ncontent-length: ${LIMIT * 5}\r\n\r\n`);
    // Not a byte of the body sent: the answer comes anyway.
    for (let i = 0; i < 100 && !received.includes("\r\n\r\n"); i++) await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    // The connection stays for the rest of the body, read and thrown away up to a bound, so that
    // closing it cannot reset the answer away.
    expect(received.toLowerCase()).not.toContain("connection: close");
  });

  it("with Expect: 100-continue and a declared length over the limit, answers 413 instead of 100 and closes", async () => {
    const { hostname, port } = new URL(t.url);
    const socket = connect(Number(port), hostname);
    let received = "";
    const closed = new Promise((resolve) => socket.on("close", resolve));
    socket.on("data", (chunk) => (received += chunk.toString()));
    socket.on("error", () => undefined);
    await new Promise((resolve) => socket.on("connect", resolve));
    socket.write(`PUT /api/teams/huge HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${LIMIT + 1}\r\n\r\n`);
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).not.toContain("100 Continue");
    expect(received).toContain("BODY_LIMIT_BYTES");
  });

  it("reads a chunked body that keeps growing past the limit only up to a bound, then closes", async () => {
    const { hostname, port } = new URL(t.url);
    const socket = connect(Number(port), hostname);
    let received = "";
    let open = true;
    socket.on("data", (chunk) => (received += chunk.toString()));
    socket.on("close", () => (open = false));
    socket.on("error", () => (open = false));
    await new Promise((resolve) => socket.on("connect", resolve));
    socket.write(`PUT /api/teams/huge HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`);
    const chunk = Buffer.from(`10000\r\n${"x".repeat(0x10000)}\r\n`);
    const cap = 40 * DRAIN_MIN_BYTES;
    let sent = 0;
    // Send without end until the server closes, or far past the bound.
    while (open && sent < cap) {
      if (!socket.write(chunk)) await new Promise((resolve) => { socket.once("drain", resolve); socket.once("close", resolve); });
      sent += chunk.length;
    }
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(sent).toBeLessThan(cap);
  });
});
