import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, redactDatabaseUrl } from "./config.js";

describe("redactDatabaseUrl", () => {
  it.each([
    ["postgres://steward:hunter2@db.internal/steward", "postgres://steward:[redacted]@db.internal/steward"],
    // The typos that make a URL unreadable are the ones a password must survive unseen.
    ["postgres:/steward:hunter2@db.internal/steward", "postgres:/[redacted]@db.internal/steward"],
    ["postgres//steward:hunter2@db.internal/steward", "[redacted]@db.internal/steward"],
    [" postgres://steward:hunter2@db.internal/steward", " postgres://[redacted]@db.internal/steward"],
    ["steward:hunter2@db.internal/steward", "steward:[redacted]@db.internal/steward"],
    ["postgres://steward:/hunter2@db.internal/steward", "postgres://steward:[redacted]@db.internal/steward"],
    ["postgres:steward:hun@ter2@db.internal/steward", "postgres:[redacted]@db.internal/steward"],
    ["postgres://db.internal/steward?sslpassword=hunter2&password=hunter2", "postgres://db.internal/steward?sslpassword=[redacted]&password=[redacted]"],
  ])("%s", (url, shown) => {
    expect(redactDatabaseUrl(url)).toBe(shown);
  });
});

describe("DATABASE_URL", () => {
  const load = (DATABASE_URL: string) => () => loadConfig({ DATABASE_URL });

  it.each(["postgres:/steward:hunter2@db/steward", "postgres//steward:hunter2@db/steward", " postgres://steward:hunter2@db/steward", "steward:hunter2@db/steward"])(
    "malformed as %j is refused without its password",
    (url) => {
      expect(load(url)).toThrow(ConfigError);
      expect(load(url)).toThrow(/DATABASE_URL/);
      expect(load(url)).not.toThrow(/hunter2/);
    },
  );

  it.each([
    ["postgres://steward:hunter2@db/steward?port=x", "x"],
    ["postgres://steward:hunter2@db/steward?port=-1", "-1"],
    ["postgres://steward:hunter2@db/steward?port=70000", "70000"],
  ])("with an unusable port (%s) is refused, naming the port", (url, port) => {
    expect(load(url)).toThrow(new RegExp(`port .*1 to 65535, got "${port}"`));
    expect(load(url)).not.toThrow(/hunter2/);
  });

  it("accepts a port in the URL or in its port parameter", () => {
    expect(load("postgres://steward@db:5433/steward")().databaseUrl).toBe("postgres://steward@db:5433/steward");
    expect(load("postgres://steward@db/steward?port=5433")().databaseUrl).toBe("postgres://steward@db/steward?port=5433");
  });
});

describe("METRICS_TOKEN", () => {
  it("is off when unset or empty, and taken as given when long enough", () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: "" }).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: "a".repeat(16) }).metricsToken).toBe("a".repeat(16));
  });

  it.each(["short", "has spaces in it, sixteen+", "x".repeat(15)])("refuses %j, without echoing it", (token) => {
    expect(() => loadConfig({ METRICS_TOKEN: token })).toThrow(ConfigError);
    try {
      loadConfig({ METRICS_TOKEN: token });
    } catch (error) {
      expect((error as Error).message).not.toContain(token);
    }
  });
});

describe("notification settings", () => {
  it("reads SMTP_URL and SMTP_FROM, and refuses an SMTP_URL that is no smtp URL without echoing it", () => {
    const config = loadConfig({ SMTP_URL: "smtps://mailer:secret@mail.example.com:465", SMTP_FROM: "steward@example.com" });
    expect(config.smtpUrl).toBe("smtps://mailer:secret@mail.example.com:465");
    expect(config.smtpFrom).toBe("steward@example.com");
    expect(loadConfig({}).smtpUrl).toBeUndefined();
    expect(() => loadConfig({ SMTP_URL: "http://mailer:secret@mail.example.com" })).toThrow(ConfigError);
    try {
      loadConfig({ SMTP_URL: "mailer:secret@mail" });
    } catch (error) {
      expect(String(error)).not.toContain("secret");
    }
  });

  it("reads the delivery settings, with a lease longer than an attempt", () => {
    const config = loadConfig({ NOTIFY_TIMEOUT_MS: "2000", NOTIFY_RETRY_BASE_MS: "50" });
    expect(config.notify).toMatchObject({ timeoutMs: 2000, retryBaseMs: 50, leaseMs: 60_000, pollMs: 1000, retryWindowMs: 86_400_000 });
    expect(() => loadConfig({ NOTIFY_TIMEOUT_MS: "5000", NOTIFY_LEASE_MS: "1000" })).toThrow(/NOTIFY_LEASE_MS/);
  });
});
