import { BlockList, isIP } from "node:net";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";

/**
 * Every request Steward makes to another server (notification channels, webhooks, the OpenID
 * provider) goes through here, so each one is held to the same rules (docs/security.md,
 * "Outgoing requests"):
 * - only `http:` and `https:`;
 * - the address is checked after DNS resolution, at connect time, so a name that resolves to a
 *   loopback, link-local, private or otherwise non-public address is refused even when it
 *   changes between two look-ups, unless the operator allows private networks or names the host;
 * - a connect timeout and a total timeout;
 * - redirects are never followed (the answer is returned as it is);
 * - at most `maxResponseBytes` of the answer are read; past that the request is aborted.
 */

export interface OutboundPolicy {
  /** Private, loopback and link-local destinations allowed (NOTIFY_ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
  /** Hosts (`name` or `name:port`, lower case) that may resolve to any address (NOTIFY_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Most time to establish the connection (default 5 s). */
  connectTimeoutMs?: number;
  /** Most time for the whole exchange, answer included (default 10 s). */
  timeoutMs?: number;
  /** Most bytes of the answer's body read (default 64 KiB). */
  maxResponseBytes?: number;
  /**
   * Connections to keep and reuse (see `keptAliveAgent`); without one each request connects anew.
   * Every connection an agent opens is checked like any other, as it is made.
   */
  agent?: http.Agent;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type OutboundFailureReason = "refused-destination" | "invalid-url" | "timeout" | "too-large" | "network";

/** Why an outgoing request failed, in words fit for a delivery log (never a secret, never a stack). */
export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailureReason,
    message: string,
  ) {
    super(message);
    this.name = "OutboundError";
  }
}

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, "ipv6");
}

/** Whether an IP address is anything but a public unicast address (IPv4-mapped IPv6 judged as IPv4). */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, "ipv4");
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return NON_PUBLIC.check(mapped[1], "ipv4");
    return NON_PUBLIC.check(address, "ipv6");
  }
  return true;
}

function hostAllowed(policy: OutboundPolicy, url: URL): boolean {
  if (policy.allowPrivateNetworks) return true;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return policy.allowedHosts.some((entry) => entry === host || entry === `${host}:${port}`);
}

/** Parses a destination, refusing anything but an absolute http(s) URL without credentials. */
export function destinationUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError("invalid-url", "The destination is not an absolute URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new OutboundError("invalid-url", "The destination must be an http or https URL.");
  if (url.username || url.password) throw new OutboundError("invalid-url", "The destination must not carry a user name or password.");
  return url;
}

/**
 * Checks, without connecting, that a destination may be reached under `policy`: its literal
 * address or every address its name resolves to now. For refusing a destination when it is
 * configured; the connection itself is checked again when it is made.
 */
export async function checkDestination(raw: string, policy: OutboundPolicy): Promise<void> {
  const url = destinationUrl(raw);
  if (hostAllowed(policy, url)) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host)
    ? [host]
    : await new Promise<string[]>((resolve, reject) =>
        dnsLookup(host, { all: true }, (error, found) => (error ? reject(new OutboundError("network", `The host '${host}' could not be resolved.`)) : resolve(found.map((a) => a.address)))),
      );
  if (addresses.some(isNonPublicAddress)) throw refused(host);
}

const refused = (host: string) =>
  new OutboundError("refused-destination", `The destination '${host}' resolves to a private, loopback or link-local address, which this server is not allowed to reach.`);

/** A DNS look-up for `http.request` that refuses non-public answers unless the policy allows them. */
function guardedLookup(policy: OutboundPolicy, url: URL) {
  const allowed = hostAllowed(policy, url);
  return (hostname: string, options: object, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "");
      const list = addresses as LookupAddress[];
      if (!allowed && list.some((a) => isNonPublicAddress(a.address))) return callback(refused(hostname), "");
      if ((options as { all?: boolean }).all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** Sends one request under `policy`. Never follows a redirect; rejects with an OutboundError. */
export function outboundRequest(raw: string, policy: OutboundPolicy, request: OutboundRequest = {}): Promise<OutboundResponse> {
  let url: URL;
  try {
    url = destinationUrl(raw);
  } catch (error) {
    return Promise.reject(error);
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // A literal address skips DNS, so it is judged here.
  if (isIP(host) && !hostAllowed(policy, url) && isNonPublicAddress(host)) return Promise.reject(refused(host));
  const connectTimeoutMs = request.connectTimeoutMs ?? 5_000;
  const timeoutMs = request.timeoutMs ?? 10_000;
  const maxResponseBytes = request.maxResponseBytes ?? 64 * 1024;
  const client = url.protocol === "https:" ? https : http;
  const startedAt = performance.now();
  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    let answered = false;
    const finish = (error: Error | undefined, response?: OutboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      if (error) reject(error);
      else resolve(response!);
    };
    const req = client.request(
      url,
      {
        method: request.method ?? "GET",
        headers: request.headers,
        // The agent passes the look-up to every connection it opens: a kept connection was checked when it was made.
        lookup: guardedLookup(policy, url) as never,
        agent: request.agent ?? false,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) {
            req.destroy();
            finish(new OutboundError("too-large", `The answer was larger than ${maxResponseBytes} bytes.`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
          finish(undefined, { status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
        res.on("error", (error) => finish(describe(error)));
      },
    );
    const total = setTimeout(() => {
      req.destroy();
      finish(new OutboundError("timeout", `No complete answer within ${timeoutMs} ms.`));
    }, timeoutMs);
    req.on("socket", (socket) => {
      if (!socket.connecting) return;
      const connect = setTimeout(() => {
        req.destroy();
        finish(new OutboundError("timeout", `No connection within ${connectTimeoutMs} ms.`));
      }, connectTimeoutMs);
      socket.once("connect", () => clearTimeout(connect));
      socket.once("secureConnect", () => clearTimeout(connect));
      socket.once("close", () => clearTimeout(connect));
    });
    req.on("error", (error) => {
      // A kept connection the other end closed while it sat idle: sent once more on a new one, within the same total time.
      const code = (error as NodeJS.ErrnoException).code;
      if (!settled && !answered && req.reusedSocket && (code === "ECONNRESET" || code === "EPIPE")) {
        settled = true;
        clearTimeout(total);
        const left = Math.max(1, Math.floor(timeoutMs - (performance.now() - startedAt)));
        resolve(outboundRequest(raw, policy, { ...request, agent: undefined, timeoutMs: left, connectTimeoutMs: Math.min(connectTimeoutMs, left) }));
        return;
      }
      finish(describe(error));
    });
    if (request.body !== undefined) req.end(request.body);
    else req.end();
  });
}

/**
 * An agent that keeps connections to one origin open between requests, for a caller that sends
 * many requests to the same place (a notification channel). Idle connections close after
 * `idleMs`; at most `maxSockets` are open at once.
 */
export function keptAliveAgent(protocol: string, idleMs = 5_000, maxSockets = 4): http.Agent {
  const options = { keepAlive: true, keepAliveMsecs: idleMs, maxSockets, maxFreeSockets: maxSockets, timeout: idleMs };
  return protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
}

function describe(error: Error): OutboundError {
  if (error instanceof OutboundError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new OutboundError("network", code ? `The request failed (${code}).` : "The request failed.");
}

/**
 * `outboundRequest` in the shape of the Fetch API, for libraries that take a custom `fetch`
 * (the OpenID Connect client): the same checks, timeouts and size cap; redirects are answered
 * as they are, never followed.
 */
export function outboundFetch(policy: OutboundPolicy, limits: Pick<OutboundRequest, "connectTimeoutMs" | "timeoutMs" | "maxResponseBytes"> = {}) {
  return async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const target = input instanceof Request ? input.url : String(input);
    const headers: Record<string, string> = {};
    new Headers(input instanceof Request ? input.headers : undefined).forEach((value, name) => (headers[name] = value));
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const rawBody = init.body ?? (input instanceof Request && input.body ? await input.text() : undefined);
    const body =
      rawBody === undefined || rawBody === null
        ? undefined
        : typeof rawBody === "string"
          ? rawBody
          : rawBody instanceof URLSearchParams
            ? rawBody.toString()
            : Buffer.from(await new Response(rawBody as ConstructorParameters<typeof Response>[0]).arrayBuffer());
    if (rawBody instanceof URLSearchParams) headers["content-type"] ??= "application/x-www-form-urlencoded;charset=UTF-8";
    const answer = await outboundRequest(target, policy, {
      ...limits,
      method: init.method ?? (input instanceof Request ? input.method : "GET"),
      headers,
      body,
    });
    const nullBody = answer.status === 204 || answer.status === 304 || (init.method ?? "GET").toUpperCase() === "HEAD";
    return new Response(nullBody ? null : new Uint8Array(answer.body), { status: answer.status, headers: answer.headers });
  };
}
