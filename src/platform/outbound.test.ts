import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDestination, isNonPublicAddress, keptAliveAgent, outboundFetch, outboundRequest, OutboundError, type OutboundPolicy } from "./outbound.js";

const closed: OutboundPolicy = { allowPrivateNetworks: false, allowedHosts: [] };
const open: OutboundPolicy = { allowPrivateNetworks: true, allowedHosts: [] };

let server: Server;
let base: string;
const held: Array<() => void> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/redirect") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    } else if (req.url === "/big") {
      res.writeHead(200);
      res.end(Buffer.alloc(200_000, 97));
    } else if (req.url === "/never") {
      held.push(() => res.destroy());
    } else {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ method: req.method, body, type: req.headers["content-type"] ?? null })));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const release of held) release();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

describe("outgoing requests on kept-alive connections", () => {
  it("reuses one connection, still refuses a private destination by name, and never follows a redirect", async () => {
    const sockets = new Set<unknown>();
    const counting = createServer((req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on("end", () => (req.url === "/redirect" ? res.writeHead(302, { location: "http://169.254.169.254/" }).end() : res.writeHead(204).end()));
    });
    await new Promise<void>((resolve) => counting.listen(0, "127.0.0.1", resolve));
    const at = `http://127.0.0.1:${(counting.address() as AddressInfo).port}`;
    const agent = keptAliveAgent("http:");
    try {
      for (let i = 0; i < 5; i++) expect((await outboundRequest(`${at}/ok`, open, { method: "POST", body: "x", agent })).status).toBe(204);
      expect(sockets.size).toBe(1);
      expect((await outboundRequest(`${at}/redirect`, open, { method: "POST", body: "x", agent })).status).toBe(302);
      // The same agent, a name that resolves to loopback, a policy that refuses it: judged as the connection is made.
      const byName = at.replace("127.0.0.1", "localhost");
      expect((await failure(outboundRequest(`${byName}/ok`, closed, { agent }))).reason).toBe("refused-destination");
      expect((await failure(outboundRequest(`${at}/ok`, closed, { agent }))).reason).toBe("refused-destination");
    } finally {
      agent.destroy();
      await new Promise((resolve) => counting.close(resolve));
    }
  });

  it("sends again on a new connection when the receiver closed the kept one while it was idle", async () => {
    let requests = 0;
    const served = new WeakMap<object, number>();
    const closing = createServer((req, res) => {
      requests++;
      const onSocket = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, onSocket);
      // As a receiver whose idle time ran out just as the next request came: the connection is dropped unanswered.
      if (onSocket > 1) return req.socket.destroy();
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => closing.listen(0, "127.0.0.1", resolve));
    const at = `http://127.0.0.1:${(closing.address() as AddressInfo).port}`;
    const agent = keptAliveAgent("http:");
    try {
      expect((await outboundRequest(`${at}/a`, open, { method: "POST", body: "x", agent })).status).toBe(204);
      expect((await outboundRequest(`${at}/b`, open, { method: "POST", body: "x", agent })).status).toBe(204);
      // The dropped one and its repeat on a new connection.
      expect(requests).toBe(3);
    } finally {
      agent.destroy();
      await new Promise((resolve) => closing.close(resolve));
    }
  });
});

describe("outgoing requests", () => {
  it("judges addresses: private, loopback, link-local and mapped ones are not public", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "100.64.0.1"]) {
      expect(isNonPublicAddress(address), address).toBe(true);
    }
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(isNonPublicAddress(address), address).toBe(false);
    expect(isNonPublicAddress("not-an-address")).toBe(true);
  });

  it("refuses loopback destinations, by address and by name, unless the operator allows them", async () => {
    expect((await failure(outboundRequest(`${base}/`, closed))).reason).toBe("refused-destination");
    const byName = base.replace("127.0.0.1", "localhost");
    expect((await failure(outboundRequest(`${byName}/`, closed))).reason).toBe("refused-destination");
    expect((await failure(checkDestination(`${byName}/`, closed))).reason).toBe("refused-destination");
    await checkDestination(`${byName}/`, open);
    const port = new URL(base).port;
    const named: OutboundPolicy = { allowPrivateNetworks: false, allowedHosts: [`127.0.0.1:${port}`] };
    expect((await outboundRequest(`${base}/`, named)).status).toBe(200);
    expect((await outboundRequest(`${base}/`, open)).status).toBe(200);
  });

  it("refuses URLs that are not http(s) or carry credentials", async () => {
    expect((await failure(outboundRequest("file:///etc/passwd", open))).reason).toBe("invalid-url");
    expect((await failure(outboundRequest(`http://user:pw@127.0.0.1/`, open))).reason).toBe("invalid-url");
    expect((await failure(outboundRequest("not a url", open))).reason).toBe("invalid-url");
  });

  it("never follows a redirect", async () => {
    const answer = await outboundRequest(`${base}/redirect`, open);
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toContain("169.254.169.254");
  });

  it("stops reading an answer past its size cap", async () => {
    const error = await failure(outboundRequest(`${base}/big`, open, { maxResponseBytes: 1000 }));
    expect(error.reason).toBe("too-large");
  });

  it("gives up on a receiver that never answers", async () => {
    const started = Date.now();
    const error = await failure(outboundRequest(`${base}/never`, open, { timeoutMs: 300 }));
    expect(error.reason).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("serves as a fetch for libraries, with method, headers and a form body", async () => {
    const fetch = outboundFetch(open);
    const answer = await fetch(`${base}/echo`, { method: "POST", body: new URLSearchParams({ a: "1" }) });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ method: "POST", body: "a=1", type: "application/x-www-form-urlencoded;charset=UTF-8" });
    await expect(outboundFetch(closed)(`${base}/echo`)).rejects.toBeInstanceOf(OutboundError);
  });
});
