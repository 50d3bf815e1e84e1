import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** One request a receiver got. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** For /hook: whether the Standard Webhooks signature checked out, by hand (not with the package). */
  signatureValid?: boolean;
}

/**
 * Real HTTP receivers on loopback, one per behaviour: `/ok/*` answers 204, `/hook/*` checks the
 * signature with `secrets[path]`, `/flaky/*` answers 500 `failures` times then 200, `/hang/*`
 * never answers, `/redirect/*` sends a 302 to a link-local address.
 */
export class Receivers {
  readonly received: Received[] = [];
  readonly secrets = new Map<string, string>();
  failures = 2;
  /** How long `/hook/*` takes to answer. */
  hookDelayMs = 0;
  private readonly flakyCounts = new Map<string, number>();
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "";
      const entry: Received = { path, headers: req.headers, body, at: Date.now() };
      if (path.startsWith("/hook/")) entry.signatureValid = verify(this.secrets.get(path) ?? "", req.headers, body);
      this.received.push(entry);
      if (path.startsWith("/hang/")) return; // never answers
      if (path.startsWith("/redirect/")) return res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      if (path.startsWith("/flaky/")) {
        const seen = (this.flakyCounts.get(path) ?? 0) + 1;
        this.flakyCounts.set(path, seen);
        if (seen <= this.failures) return res.writeHead(500).end("not now");
        return res.writeHead(200).end("ok");
      }
      if (path.startsWith("/hook/") && this.hookDelayMs > 0) {
        setTimeout(() => res.writeHead(204).end(), this.hookDelayMs);
        return;
      }
      res.writeHead(204).end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * Standard Webhooks verification written out: HMAC-SHA256 over `${id}.${timestamp}.${body}` with
 * the base64 key after `whsec_`, compared with each `v1,` signature in the header.
 */
export function verify(secret: string, headers: http.IncomingHttpHeaders, body: string): boolean {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string" || !secret.startsWith("whsec_")) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac("sha256", Buffer.from(secret.slice(6), "base64")).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(" ").some((s) => {
    const [version, value] = s.split(",");
    if (version !== "v1" || !value) return false;
    const given = Buffer.from(value, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export interface Mail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that keeps every message it is given. */
export class MailServer {
  readonly messages: Mail[] = [];
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        this.messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Waits until `check` answers something truthy, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T> | T, ms = 15_000, what = "condition"): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A test server's settings for notifications to loopback receivers and the test SMTP server at
 * `smtpUrl`, derived and retried quickly so that tests wait little.
 */
export function quickNotifications(smtpUrl: string) {
  return {
    outbound: { allowPrivateNetworks: true, allowedHosts: [] },
    notify: { pollMs: 20, retryBaseMs: 50, timeoutMs: 800, leaseMs: 5000 },
    smtpUrl,
    smtpFrom: "steward@example.com",
  };
}
