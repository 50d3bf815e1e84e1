/**
 * The other ends of the notification benchmark, each a bare Node process of its own so that
 * neither shares this process's event loop: receivers (one `node:http` server per channel,
 * answering 204 and counting what arrives) and a bare sender (the baseline: the same POSTs in a
 * plain loop, one loop per receiver so that each receives in order, as a channel does).
 */
import { spawn, type ChildProcess } from "node:child_process";

const RECEIVERS_SCRIPT = `
const http = require("node:http");
let received = 0, firstAt = 0, lastAt = 0, sample;
const kept = ["content-type", "user-agent", "webhook-id", "webhook-timestamp", "webhook-signature"];
const servers = Array.from({ length: Number(process.env.RECEIVERS) }, () => http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const now = Date.now();
    if (received++ === 0) firstAt = now;
    lastAt = now;
    if (!sample) sample = { headers: Object.fromEntries(kept.filter((h) => req.headers[h] !== undefined).map((h) => [h, req.headers[h]])), body: Buffer.concat(chunks).toString() };
    res.writeHead(204).end();
  });
}));
Promise.all(servers.map((s) => new Promise((r) => s.listen(0, "127.0.0.1", r)))).then(() => process.send({ ports: servers.map((s) => s.address().port) }));
process.on("message", (m) => {
  if (m === "counts") process.send({ received, firstAt, lastAt });
  else if (m === "sample") process.send({ sample });
  else if (m === "reset") { received = 0; firstAt = 0; lastAt = 0; process.send({ reset: true }); }
});
`;

const BARE_SENDER_SCRIPT = `
const http = require("node:http");
process.on("message", async ({ endpoints, sample, perTarget, keepAlive }) => {
  const agent = keepAlive ? new http.Agent({ keepAlive: true }) : false;
  const headers = { ...sample.headers, "content-length": String(Buffer.byteLength(sample.body)) };
  const post = (url) => new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers, agent }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode >= 200 && res.statusCode < 300 ? resolve() : reject(new Error("answered " + res.statusCode))));
    });
    req.on("error", reject);
    req.end(sample.body);
  });
  const started = performance.now();
  await Promise.all(endpoints.map(async (url) => { for (let i = 0; i < perTarget; i++) await post(url); }));
  const seconds = (performance.now() - started) / 1000;
  if (agent) agent.destroy();
  process.send({ perSecond: Math.round((endpoints.length * perTarget) / seconds), seconds: Math.round(seconds * 10) / 10 });
});
process.send({ ready: true });
`;

function child(script: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ["-e", script], { env: { ...process.env, ...env }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
}

/** The next message of a child, after sending it `message` when given. */
function ask<T>(process: ChildProcess, message?: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = () => reject(new Error("a benchmark peer exited"));
    process.once("exit", exited);
    process.once("message", (answer) => {
      process.off("exit", exited);
      resolve(answer as T);
    });
    if (message !== undefined) process.send(message as never);
  });
}

export interface Sample {
  headers: Record<string, string>;
  body: string;
}

export interface Receivers {
  endpoints: string[];
  pid: number;
  /** Requests received since the last reset, and when the first and the last arrived (ms since the epoch). */
  counts(): Promise<{ received: number; firstAt: number; lastAt: number }>;
  /** The first request received, headers and body, for the bare sender to send alike. */
  sample(): Promise<Sample>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export async function startReceivers(count: number): Promise<Receivers> {
  const proc = child(RECEIVERS_SCRIPT, { RECEIVERS: String(count) });
  const { ports } = await ask<{ ports: number[] }>(proc);
  return {
    endpoints: ports.map((port, i) => `http://127.0.0.1:${port}/hook/${i}`),
    pid: proc.pid!,
    counts: () => ask(proc, "counts"),
    sample: async () => (await ask<{ sample: Sample }>(proc, "sample")).sample,
    reset: async () => void (await ask(proc, "reset")),
    stop: async () => {
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGTERM");
      await exited;
    },
  };
}

export interface BareSender {
  pid: number;
  /** Sends `perTarget` copies of `sample` to each endpoint, each endpoint's in order; the rate over all. */
  send(endpoints: string[], sample: Sample, perTarget: number, keepAlive: boolean): Promise<{ perSecond: number; seconds: number }>;
  stop(): void;
}

export async function startBareSender(): Promise<BareSender> {
  const proc = child(BARE_SENDER_SCRIPT);
  await ask(proc);
  return {
    pid: proc.pid!,
    send: (endpoints, sample, perTarget, keepAlive) => ask(proc, { endpoints, sample, perTarget, keepAlive }),
    stop: () => void proc.kill("SIGTERM"),
  };
}
