import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { CloudEvent, PositionStore } from "../../src/consumer/index.js";
import { request, type TestServer } from "../helpers/server.js";

/** One organization of a test server: its own key and its own feed. */
export interface Org {
  url: string;
  key: string;
  /** Creates or renames team `id`: appends one TeamCreatedEvent or TeamUpdatedEvent. */
  touch(teamId: string): Promise<void>;
  /** Every event of the organization, oldest first. */
  events(): Promise<CloudEvent[]>;
}

export async function newOrg(t: TestServer): Promise<Org> {
  const { key } = await t.createOrganization(`org-${Math.random().toString(36).slice(2)}`);
  return orgOf(t.url, key);
}

export function orgOf(url: string, key: string): Org {
  return {
    url,
    key,
    async touch(teamId) {
      const res = await request(url, "PUT", `/api/teams/${teamId}`, { name: `${teamId} ${Math.random().toString(36).slice(2)}` }, { key });
      if (res.status !== 200) throw new Error(`PUT /api/teams/${teamId}: ${res.status} ${res.text}`);
    },
    async events() {
      const events: CloudEvent[] = [];
      for (;;) {
        const after = events.at(-1)?.id;
        const res = await request(url, "GET", `/api/events${after ? `?lastEventId=${after}` : ""}`, undefined, { key });
        if (res.status !== 200) throw new Error(`GET /api/events: ${res.status} ${res.text}`);
        if (res.body.length === 0) return events;
        events.push(...res.body);
      }
    },
  };
}

/** A position store that records every call, in order, into `log` (shared with the handler). */
export class RecordingStore implements PositionStore {
  readonly saves: string[] = [];
  constructor(
    private position: string | undefined = undefined,
    readonly log: string[] = [],
  ) {}
  async load() {
    this.log.push("load");
    return this.position;
  }
  async save(id: string) {
    this.log.push(`save ${id}`);
    this.saves.push(id);
    this.position = id;
  }
}

export type Fault = "503" | "drop" | "hang";

/**
 * A loopback HTTP proxy in front of Steward that records every request and can be told to answer
 * the next requests with a 503, drop their connection, or hold them without an answer.
 */
export class FaultProxy {
  readonly requests: string[] = [];
  private faults: Fault[] = [];
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  static async start(target: string): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const server = createServer((req, res) => proxy!.handle(target, req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    proxy = new FaultProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxy;
  }

  failNext(count: number, fault: Fault): void {
    for (let i = 0; i < count; i++) this.faults.push(fault);
  }

  /** Feed reads only, as path and query. */
  get feedRequests(): string[] {
    return this.requests.filter((r) => r.startsWith("GET /api/events"));
  }

  private handle(target: string, req: IncomingMessage, res: ServerResponse): void {
    this.requests.push(`${req.method} ${req.url}`);
    const fault = this.faults.shift();
    if (fault === "503") {
      res.writeHead(503, { "content-type": "application/problem+json" });
      res.end(JSON.stringify({ type: "urn:test:unavailable", title: "Service unavailable", status: 503, detail: "Injected by the test proxy." }));
      return;
    }
    if (fault === "drop") {
      req.socket.destroy();
      return;
    }
    if (fault === "hang") return;
    const upstream = httpRequest(target + req.url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `check` every 20 ms until it is true; fails after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
