import { fileURLToPath } from "node:url";

/** Steward's configuration, read once from the environment (PRODUCT.md §1). */

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
  bodyLimitBytes: number;
  /** Output ports one data product may have (MAX_OUTPUT_PORTS). */
  maxOutputPorts: number;
  /** How often the lifecycle scheduler looks for accesses whose dates were reached. */
  schedulerIntervalMs: number;
  /** scrypt cost of new password hashes, as log2(N): 17 (OWASP's guidance) unless a test lowers it. */
  passwordLog2Cost: number;
  /** Where the built web app is (`npm run build` writes dist/web); STEWARD_WEB_DIR overrides. */
  webDir: string;
}

export class ConfigError extends Error {}

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

/**
 * A database URL fit to print: the password (in the authority or a `password=` parameter) is
 * replaced, even when the URL is too malformed to parse.
 */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):.*@/i, "$1:[redacted]@").replace(/([?&](?:ssl)?password=)[^&#]*/gi, "$1[redacted]");
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
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
    bodyLimitBytes: overrides.bodyLimitBytes ?? integer(env, "BODY_LIMIT_BYTES", 10 * 1024 * 1024, 1024, 1024 ** 3),
    maxOutputPorts: overrides.maxOutputPorts ?? integer(env, "MAX_OUTPUT_PORTS", 1000, 1, 1_000_000),
    schedulerIntervalMs: overrides.schedulerIntervalMs ?? integer(env, "SCHEDULER_INTERVAL_MS", 1000, 10, 3_600_000),
    passwordLog2Cost: overrides.passwordLog2Cost ?? 17,
    // src/platform/config.ts and dist/platform/config.js both sit two levels below the package root.
    webDir: overrides.webDir ?? env.STEWARD_WEB_DIR ?? fileURLToPath(new URL("../../dist/web", import.meta.url)),
  };
}
