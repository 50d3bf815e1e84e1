import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { OutboundPolicy } from "./outbound.js";

/** Steward's configuration, read once from the environment (docs/product.md §1). */

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  appUrl: string;
  eventTypePrefix: string;
  longPollTimeoutMs: number;
  longPollMaxWaiting: number;
  /** Held long polls per organization and process: one tenant cannot take every place. */
  longPollMaxWaitingPerOrganization: number;
  logLevel: string;
  bootstrap: boolean;
  /** FIRST_START_FILE: where the first key and setup link are written (see first-start.ts). */
  firstStartFile?: string;
  bodyLimitBytes: number;
  /** Output ports one data product may have (MAX_OUTPUT_PORTS). */
  maxOutputPorts: number;
  /** Tags assigned to one asset through /assigned-tags (MAX_ASSIGNED_TAGS). */
  maxAssignedTags: number;
  /** Resource limits (docs/product.md §1): past one, a 408, 413, 422 or 429 problem naming it. */
  limits: Limits;
  /** How often the lifecycle scheduler looks for accesses whose dates were reached. */
  schedulerIntervalMs: number;
  /** scrypt cost of new password hashes, as log2(N): 17 (OWASP's guidance) unless a test lowers it. */
  passwordLog2Cost: number;
  /** Where the built web app is (`npm run build` writes dist/web); STEWARD_WEB_DIR overrides. */
  webDir: string;
  /** A directory on this machine for the feed's stored batches as files (FEED_CACHE_DIR); none when unset. */
  feedCacheDir?: string;
  /** Most bytes the feed cache keeps; past it the oldest files go (FEED_CACHE_LIMIT_BYTES). */
  feedCacheLimitBytes: number;
  /** What outgoing requests (notifications, the OpenID provider) may reach (src/platform/outbound.ts). */
  outbound: OutboundPolicy;
  /** METRICS_TOKEN: `GET /metrics` is served, to this bearer token only, when set. */
  metricsToken?: string;
  /** The SMTP server e-mail notifications go through (SMTP_URL); without it e-mail is off. */
  smtpUrl?: string;
  /** The sender address of e-mail notifications (SMTP_FROM). */
  smtpFrom?: string;
  /** How notifications are delivered (docs/notifications.md). */
  notify: NotifyConfig;
  /** Sign-in through an OpenID provider (OIDC_*); undefined when OIDC_ISSUER is unset (docs/identity.md). */
  oidc?: OidcConfig;
  /** How many days lineage events are kept (LINEAGE_RETENTION_DAYS, docs/lineage.md). */
  lineageRetentionDays: number;
  /** How many days usage spans are kept (USAGE_RETENTION_DAYS, docs/lineage.md "Usage"). */
  usageRetentionDays: number;
}

export interface NotifyConfig {
  /** How often each process looks for new events and due deliveries (NOTIFY_POLL_MS). */
  pollMs: number;
  /** First retry delay, doubled per failed attempt up to an hour (NOTIFY_RETRY_BASE_MS). */
  retryBaseMs: number;
  /** How long after it was queued a delivery is still retried (NOTIFY_RETRY_WINDOW_MS, 24 h). */
  retryWindowMs: number;
  /** Longest one attempt may take, answer included (NOTIFY_TIMEOUT_MS); connecting gets at most half. */
  timeoutMs: number;
  /** How long a process holds a delivery it is attempting; past it another may take it (NOTIFY_LEASE_MS). */
  leaseMs: number;
  /** Deliveries attempted at once per process (NOTIFY_CONCURRENCY). */
  concurrency: number;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The ID token claim that lists the person's groups (OIDC_GROUPS_CLAIM); none when unset. */
  groupsClaim?: string;
  /** Scopes asked for (OIDC_SCOPES), `openid email profile` unless set. */
  scopes: string;
  /** What the sign-in button says after "Sign in with" (OIDC_NAME). */
  name: string;
}

/** OIDC_* variables: all of issuer, client id and secret, or none. Plain http only to a loopback issuer. */
function oidcConfig(env: Env): OidcConfig | undefined {
  const issuer = env.OIDC_ISSUER?.trim();
  if (!issuer) return undefined;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError(`OIDC_ISSUER must be an absolute URL, got "${issuer}"`);
  }
  const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i.test(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) throw new ConfigError(`OIDC_ISSUER must be an https URL (http only on loopback), got "${issuer}"`);
  const clientId = env.OIDC_CLIENT_ID?.trim();
  const clientSecret = env.OIDC_CLIENT_SECRET;
  if (!clientId || !clientSecret) throw new ConfigError("OIDC_ISSUER is set: OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set too");
  const groupsClaim = env.OIDC_GROUPS_CLAIM?.trim() || undefined;
  return { issuer, clientId, clientSecret, groupsClaim, scopes: env.OIDC_SCOPES?.trim() || "openid email profile", name: env.OIDC_NAME?.trim() || url.hostname };
}

export interface Limits {
  /** Largest `specification` of one schema, in bytes (SPECIFICATION_LIMIT_BYTES). */
  specificationBytes: number;
  /** Largest stored catalog document, in bytes of JSON (DOCUMENT_LIMIT_BYTES). */
  documentBytes: number;
  /** Most fields the normalized models of one contract may have (MAX_MODEL_FIELDS). */
  modelFields: number;
  /** Longest a big specification or YAML document may take to parse or write on a worker thread (SCHEMA_PARSE_TIMEOUT_MS). */
  schemaParseTimeoutMs: number;
  /** Longest a client may take to send a whole request, headers and body (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** Longest the policy rules of one decision may run (RULE_TIMEOUT_MS), and the heap their thread may use (RULE_MEMORY_MB); docs/policies.md. */
  ruleTimeoutMs: number;
  ruleMemoryMb: number;
  /** Longest a client may take to send a request's headers (HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** Open connections per process; more are refused at once (MAX_CONNECTIONS). */
  connections: number;
  /** Bodies of the routes that need no key (sign-in, invitations) are small (AUTH_BODY_LIMIT_BYTES). */
  authBodyBytes: number;
  /** Most bytes of documents in one list page (PAGE_LIMIT_BYTES); a page always holds at least one. */
  pageBytes: number;
  /** Pieces of work one organization may have running and waiting on the worker threads (WORKER_QUEUE_PER_ORGANIZATION). */
  workerQueuePerOrganization: number;
  /** Open connections from one client address; more are refused at once (MAX_CONNECTIONS_PER_CLIENT). */
  connectionsPerClient: number;
  /** How long a connection that has not carried an authenticated request may stay idle (UNAUTHENTICATED_IDLE_TIMEOUT_MS). */
  unauthenticatedIdleMs: number;
}

export class ConfigError extends Error {}

/** What code (tests, the CLI) may set instead of the environment; limits one by one. */
export type ConfigOverrides = Partial<Omit<Config, "limits" | "notify">> & { limits?: Partial<Limits>; notify?: Partial<NotifyConfig> };

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (/^(true|1|yes|on)$/i.test(raw)) return true;
  if (/^(false|0|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** A comma-separated list of `host` or `host:port` entries, lower case. */
function hostList(env: Env, name: string): string[] {
  const entries = (env[name] ?? "").split(",").map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  for (const entry of entries) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(entry)) throw new ConfigError(`${name} must list host names or host:port pairs separated by commas, got "${entry}"`);
  }
  return entries.map((entry) => entry.replace(/^\[|\](?=(:\d+)?$)/g, ""));
}

/**
 * A database URL fit to print: the password (in the authority or a `password=` parameter) is
 * replaced, however malformed the URL is. The typos that make a URL malformed (a missing `/`, a
 * leading space, no scheme at all) are the very ones that keep it from being read as a URL, so
 * where the text is not `scheme://user:password@…` everything before its last `@` is taken for
 * the user and password: the user may be hidden with the password, never the password shown.
 */
export function redactDatabaseUrl(url: string): string {
  const authority = /^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):.*@/i;
  const userinfo = authority.test(url)
    ? url.replace(authority, "$1:[redacted]@")
    : url.replace(/^(\s*[a-z][a-z0-9+.-]*:\/*)?.*@/is, (_, scheme: string | undefined) => `${scheme ?? ""}[redacted]@`);
  return userinfo.replace(/([?&](?:ssl)?password=)[^&#]*/gi, "$1[redacted]");
}

/**
 * The port `pg` would dial for a PostgreSQL URL: the URL's, its `port` parameter's or PGPORT's.
 * One it cannot use (`?port=x`, `-1`) makes its socket throw at once, where the pool loses the
 * error; so it is refused here, with the configuration.
 */
function checkPostgresPort(databaseUrl: string): void {
  let port: number;
  try {
    port = new pg.Client({ connectionString: databaseUrl }).port;
  } catch (error) {
    // Reading the URL's TLS files (sslcert=…) failed; pg's message names the file, not the URL.
    throw new ConfigError(`DATABASE_URL cannot be used: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (Number.isInteger(port) && port >= 1 && port <= 65535) return;
  const parsed = new URL(databaseUrl);
  const given = parsed.searchParams.get("port") || parsed.port || process.env.PGPORT || "";
  throw new ConfigError(
    `DATABASE_URL's port (in the URL, its port parameter or PGPORT) must be a whole number from 1 to 65535, got "${given}": "${redactDatabaseUrl(databaseUrl)}"`,
  );
}

/** METRICS_TOKEN, when set: long enough not to be guessed, and only characters a bearer token may hold. */
function metricsToken(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === "") return undefined;
  if (raw.length < 16 || !/^[A-Za-z0-9._~+/=-]+$/.test(raw)) {
    throw new ConfigError("METRICS_TOKEN must be at least 16 characters of A-Z, a-z, 0-9 and . _ ~ + / = - (e.g. openssl rand -hex 32)");
  }
  return raw;
}

function smtpUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  // Never echo the value: it may carry the SMTP password.
  if (!url || (url.protocol !== "smtp:" && url.protocol !== "smtps:")) throw new ConfigError("SMTP_URL must be an smtp:// or smtps:// URL");
  return raw;
}

function notifyConfig(env: Env, overrides: Partial<NotifyConfig> = {}): NotifyConfig {
  const timeoutMs = integer(env, "NOTIFY_TIMEOUT_MS", 10_000, 100, 600_000);
  return {
    pollMs: integer(env, "NOTIFY_POLL_MS", 1000, 10, 3_600_000),
    retryBaseMs: integer(env, "NOTIFY_RETRY_BASE_MS", 10_000, 1, 3_600_000),
    retryWindowMs: integer(env, "NOTIFY_RETRY_WINDOW_MS", 24 * 60 * 60 * 1000, 1000, 30 * 24 * 60 * 60 * 1000),
    timeoutMs,
    leaseMs: integer(env, "NOTIFY_LEASE_MS", Math.max(60_000, timeoutMs * 2), timeoutMs + 100, 3_600_000),
    concurrency: integer(env, "NOTIFY_CONCURRENCY", 16, 1, 1000),
    ...overrides,
  };
}

export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): Config {
  const port = overrides.port ?? integer(env, "PORT", 8080, 0, 65535);
  const databaseUrl = overrides.databaseUrl ?? env.DATABASE_URL ?? "sqlite:./data/steward.db";
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, got "${redactDatabaseUrl(databaseUrl)}"`);
  }
  if (!databaseUrl.startsWith("sqlite:")) {
    try {
      new URL(databaseUrl);
    } catch {
      throw new ConfigError(`DATABASE_URL is not a valid postgres:// URL: "${redactDatabaseUrl(databaseUrl)}"`);
    }
    checkPostgresPort(databaseUrl);
  }
  const appUrl = (overrides.appUrl ?? env.APP_URL ?? `http://localhost:${port}`).replace(/\/+$/, "");
  try {
    new URL(appUrl);
  } catch {
    throw new ConfigError(`APP_URL must be an absolute URL, got "${appUrl}"`);
  }
  const eventTypePrefix = overrides.eventTypePrefix ?? env.EVENT_TYPE_PREFIX ?? "com.service.events";
  if (!/^[A-Za-z0-9][A-Za-z0-9.\-]*[A-Za-z0-9]$/.test(eventTypePrefix)) {
    throw new ConfigError(`EVENT_TYPE_PREFIX must be a dotted name such as com.service.events, got "${eventTypePrefix}"`);
  }
  const bodyLimitBytes = overrides.bodyLimitBytes ?? integer(env, "BODY_LIMIT_BYTES", 10 * 1024 * 1024, 1024, 1024 ** 3);
  const requestTimeoutMs = integer(env, "REQUEST_TIMEOUT_MS", 30_000, 100, 3_600_000);
  const limits: Limits = {
    specificationBytes: integer(env, "SPECIFICATION_LIMIT_BYTES", 2 * 1024 * 1024, 1024, 1024 ** 3),
    documentBytes: integer(env, "DOCUMENT_LIMIT_BYTES", 4 * 1024 * 1024, 1024, 1024 ** 3),
    modelFields: integer(env, "MAX_MODEL_FIELDS", 100_000, 1, 100_000_000),
    schemaParseTimeoutMs: integer(env, "SCHEMA_PARSE_TIMEOUT_MS", 30_000, 100, 3_600_000),
    requestTimeoutMs,
    ruleTimeoutMs: integer(env, "RULE_TIMEOUT_MS", 1000, 10, 60_000),
    ruleMemoryMb: integer(env, "RULE_MEMORY_MB", 64, 16, 4096),
    headersTimeoutMs: integer(env, "HEADERS_TIMEOUT_MS", Math.min(10_000, requestTimeoutMs), 100, requestTimeoutMs),
    connections: integer(env, "MAX_CONNECTIONS", 4096, 1, 1_000_000),
    authBodyBytes: integer(env, "AUTH_BODY_LIMIT_BYTES", 64 * 1024, 1024, 1024 ** 3),
    pageBytes: integer(env, "PAGE_LIMIT_BYTES", bodyLimitBytes, 1024, 1024 ** 3),
    workerQueuePerOrganization: integer(env, "WORKER_QUEUE_PER_ORGANIZATION", 8, 1, 10_000),
    connectionsPerClient: integer(env, "MAX_CONNECTIONS_PER_CLIENT", 256, 1, 1_000_000),
    unauthenticatedIdleMs: integer(env, "UNAUTHENTICATED_IDLE_TIMEOUT_MS", 5_000, 100, 3_600_000),
    ...overrides.limits,
  };
  return {
    port,
    host: overrides.host ?? env.HOST ?? "127.0.0.1",
    databaseUrl,
    appUrl,
    eventTypePrefix,
    longPollTimeoutMs: overrides.longPollTimeoutMs ?? integer(env, "LONG_POLL_TIMEOUT_MS", 10_000, 0, 300_000),
    longPollMaxWaiting: overrides.longPollMaxWaiting ?? integer(env, "LONG_POLL_MAX_WAITING", 1000, 0, 1_000_000),
    longPollMaxWaitingPerOrganization:
      overrides.longPollMaxWaitingPerOrganization ?? integer(env, "LONG_POLL_MAX_WAITING_PER_ORGANIZATION", 100, 0, 1_000_000),
    logLevel: overrides.logLevel ?? env.LOG_LEVEL ?? "info",
    bootstrap: overrides.bootstrap ?? boolean(env, "STEWARD_BOOTSTRAP", true),
    firstStartFile: env.FIRST_START_FILE === undefined || env.FIRST_START_FILE === "" ? undefined : resolve(env.FIRST_START_FILE),
    bodyLimitBytes,
    limits,
    maxOutputPorts: overrides.maxOutputPorts ?? integer(env, "MAX_OUTPUT_PORTS", 1000, 1, 1_000_000),
    maxAssignedTags: overrides.maxAssignedTags ?? integer(env, "MAX_ASSIGNED_TAGS", 1000, 1, 1_000_000),
    schedulerIntervalMs: overrides.schedulerIntervalMs ?? integer(env, "SCHEDULER_INTERVAL_MS", 1000, 10, 3_600_000),
    passwordLog2Cost: overrides.passwordLog2Cost ?? 17,
    // src/platform/config.ts and dist/platform/config.js both sit two levels below the package root.
    webDir: overrides.webDir ?? env.STEWARD_WEB_DIR ?? fileURLToPath(new URL("../../dist/web", import.meta.url)),
    feedCacheDir: overrides.feedCacheDir ?? (env.FEED_CACHE_DIR ? resolve(env.FEED_CACHE_DIR) : undefined),
    feedCacheLimitBytes: overrides.feedCacheLimitBytes ?? integer(env, "FEED_CACHE_LIMIT_BYTES", 1024 ** 3, 1024 ** 2, 2 ** 50),
    outbound: overrides.outbound ?? {
      allowPrivateNetworks: boolean(env, "NOTIFY_ALLOW_PRIVATE_NETWORKS", false),
      allowedHosts: hostList(env, "NOTIFY_ALLOWED_HOSTS"),
    },
    metricsToken: overrides.metricsToken ?? metricsToken(env),
    smtpUrl: overrides.smtpUrl ?? smtpUrl(env.SMTP_URL),
    smtpFrom: overrides.smtpFrom ?? (env.SMTP_FROM || undefined),
    notify: notifyConfig(env, overrides.notify),
    oidc: "oidc" in overrides ? overrides.oidc : oidcConfig(env),
    lineageRetentionDays: overrides.lineageRetentionDays ?? integer(env, "LINEAGE_RETENTION_DAYS", 90, 1, 36_500),
    usageRetentionDays: overrides.usageRetentionDays ?? integer(env, "USAGE_RETENTION_DAYS", 30, 1, 36_500),
  };
}
