/**
 * Connections as a shared resource, through real sockets: one client address holds at most
 * MAX_CONNECTIONS_PER_CLIENT, a connection without a key is closed when idle past
 * UNAUTHENTICATED_IDLE_TIMEOUT_MS, and a connection is closed with its second 401.
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { request, startTestServer, type TestServer } from "./helpers/server.js";

function open(url: string, localAddress?: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname, localAddress }, () => resolve(socket));
    socket.on("error", reject);
  });
}

/** Resolves with what the socket received once it is closed, or undefined if still open after `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let received = "";
    const timer = setTimeout(() => resolve(undefined), ms);
    socket.on("data", (chunk) => (received += chunk.toString()));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** Sends one request on a raw socket and waits for its whole answer (by content-length). */
function exchange(socket: Socket, head: string[]): Promise<string> {
  return new Promise((resolve) => {
    let received = "";
    const onData = (chunk: Buffer) => {
      received += chunk.toString();
      const end = received.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(received);
      if (end !== -1 && length && received.length >= end + 4 + Number(length[1])) {
        socket.off("data", onData);
        resolve(received);
      }
    };
    socket.on("data", onData);
    socket.write(head.join("\r\n") + "\r\n\r\n");
  });
}

describe.each(DATABASES)("connections (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, { limits: { connectionsPerClient: 5, unauthenticatedIdleMs: 400, connections: 100 } });
  });
  afterAll(() => t?.close());

  it("caps the connections of one client address; another client still gets in", async () => {
    // Every address of 127.0.0.0/8 reaches this machine: 127.0.0.2 is another client.
    const held = await Promise.all(Array.from({ length: 5 }, () => open(t.url, "127.0.0.2")));
    const extra = await open(t.url, "127.0.0.2");
    expect(await closedWithin(extra, 2000)).toBe("");
    expect((await request(t.url, "GET", "/health/live")).status).toBe(200);
    for (const socket of held) socket.destroy();
  });

  it("closes an idle connection that has not authenticated, and keeps one that has", async () => {
    const silent = await open(t.url);
    const started = performance.now();
    expect(await closedWithin(silent, 5000)).toBe("");
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);

    const anonymous = await open(t.url);
    const health = await exchange(anonymous, ["GET /health/live HTTP/1.1", "host: x"]);
    expect(health).toMatch(/^HTTP\/1\.1 200/);
    expect(health).toMatch(/keep-alive: timeout=1/i);
    expect(await closedWithin(anonymous, 5000)).toBe("");

    const keyed = await open(t.url);
    expect(await exchange(keyed, ["GET /api/teams HTTP/1.1", "host: x", `x-api-key: ${t.key}`])).toMatch(/^HTTP\/1\.1 200/);
    expect(await closedWithin(keyed, 1200)).toBeUndefined();
    expect(await exchange(keyed, ["GET /api/teams HTTP/1.1", "host: x", `x-api-key: ${t.key}`])).toMatch(/^HTTP\/1\.1 200/);
    keyed.destroy();
  });

  it("closes a keep-alive connection with its second 401", async () => {
    const socket = await open(t.url);
    const closed = closedWithin(socket, 5000);
    const first = await exchange(socket, ["GET /api/teams HTTP/1.1", "host: x", "x-api-key: stw_wrong"]);
    expect(first).toMatch(/^HTTP\/1\.1 401/);
    expect(first).not.toMatch(/connection: close/i);
    const second = await exchange(socket, ["GET /api/teams HTTP/1.1", "host: x", "x-api-key: stw_wrong-again"]);
    expect(second).toMatch(/^HTTP\/1\.1 401/);
    expect(second).toMatch(/connection: close/i);
    expect(await closed).toBeDefined();
  });
});
