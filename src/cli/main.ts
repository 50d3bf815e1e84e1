#!/usr/bin/env node
import { Command, Option } from "commander";
import { VERSION } from "../platform/version.js";
import { ConfigError, loadConfig } from "../platform/config.js";
import { systemClock } from "../platform/clock.js";
import { openDatabase, type Database } from "../platform/database/index.js";
import { describeDatabaseUrl } from "../platform/database/describe.js";
import { migrateToLatest } from "../platform/database/migrations/index.js";
import { badRequest, missing, Problem } from "../platform/errors.js";
import type { Services } from "../services.js";
import { registerConsumeCommand } from "./consume.js";
import { registerConnectorCommands } from "./connector.js";
import { API_KEY_SCOPES } from "../modules/api-keys/shapes.js";
import type { ApiKeyScope } from "../modules/api-keys/service.js";

const program = new Command()
  .name("steward")
  .description("Steward: data products, data contracts, access requests and their event feed.")
  .version(VERSION)
  .showHelpAfterError();

const databaseOption = () => new Option("--database-url <url>", "sqlite:<path>, sqlite::memory: or postgres://… (default: DATABASE_URL or sqlite:./data/steward.db)");

function output(json: boolean, value: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** Runs a one-shot command against the configured database, migrated first. */
async function withServices<T>(databaseUrl: string | undefined, work: (services: Services) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env, databaseUrl ? { databaseUrl } : {});
  const database: Database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database);
    // Loaded here, not at the top: `steward consume` and the connectors need none of the server.
    const { createServices } = await import("../services.js");
    return await work(createServices(config, database, systemClock));
  } finally {
    await database.close();
  }
}

program
  .command("serve")
  .description("Serve the web app and API (applies pending migrations first).")
  .addOption(new Option("--port <port>", "listen port (PORT)").argParser((v) => Number(v)))
  .addOption(new Option("--host <host>", "listen address (HOST)"))
  .addOption(databaseOption())
  .action(async (opts: { port?: number; host?: string; databaseUrl?: string }) => {
    const config = loadConfig(process.env, {
      ...(opts.port !== undefined ? { port: opts.port } : {}),
      ...(opts.host ? { host: opts.host } : {}),
      ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
    });
    const { startServer } = await import("../server.js");
    const server = await startServer(config);
    // One plain line for the person at the terminal (stderr, beside the JSON logs on stdout).
    process.stderr.write(`Steward listening on ${server.url} (web app and API), database: ${describeDatabaseUrl(config.databaseUrl)}\n`);
    const { feedCacheDir, feedCacheLimitBytes } = config;
    server.app.log.info(
      { url: server.url, database: server.services.database.dialect, ...(feedCacheDir ? { feedCache: { dir: feedCacheDir, limitBytes: feedCacheLimitBytes } } : {}) },
      "Steward is listening",
    );
    const stop = async (signal: string) => {
      server.app.log.info({ signal }, "shutting down");
      try {
        await server.close();
        process.exit(0);
      } catch (error) {
        server.app.log.error({ err: error }, "shutdown failed");
        process.exit(1);
      }
    };
    process.once("SIGTERM", () => void stop("SIGTERM"));
    process.once("SIGINT", () => void stop("SIGINT"));
  });

program
  .command("migrate")
  .description("Apply pending database migrations and exit.")
  .addOption(databaseOption())
  .option("--json", "print one JSON object")
  .action(async (opts: { databaseUrl?: string; json?: boolean }) => {
    const config = loadConfig(process.env, opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {});
    const database = openDatabase(config.databaseUrl);
    try {
      const applied = await migrateToLatest(database);
      output(!!opts.json, { applied }, applied.length ? `Applied: ${applied.join(", ")}` : "The database is up to date.");
    } finally {
      await database.close();
    }
  });

const org = program.command("org").description("Organizations.");
org
  .command("create")
  .description("Create an organization and its first organization-scoped API key (shown once).")
  .requiredOption("--name <name>", "organization name")
  .addOption(databaseOption())
  .option("--json", "print one JSON object")
  .action(async (opts: { name: string; databaseUrl?: string; json?: boolean }) => {
    const created = await withServices(opts.databaseUrl, (s) => s.organizations.create(opts.name));
    output(
      !!opts.json,
      { organizationId: created.organizationId, apiKey: created.apiKey },
      `Created organization '${created.name}' (${created.organizationId}).\nAPI key (shown once, store it now): ${created.apiKey}`,
    );
  });

const key = program.command("key").description("API keys.");
key
  .command("create")
  .description("Create an API key for an organization, optionally scoped to one team (shown once).")
  .requiredOption("--org <organizationId>", "organization id")
  .option("--team <teamId>", "scope the key to this team")
  .option("--read-only", "with --team: the key reads everything and changes nothing (scope team_read)")
  .option("--scope <scope>", `one of ${API_KEY_SCOPES.join(", ")} (default: organization, or team with --team)`)
  .option("--user <userIdOrEmail>", "for scopes user and user_read: the member the key acts as")
  .option("--name <displayName>", "display name", "Key created with the CLI")
  .option("--expires-at <date>", "ISO 8601 date-time or date")
  .addOption(databaseOption())
  .option("--json", "print one JSON object")
  .action(async (opts: { org: string; team?: string; readOnly?: boolean; scope?: string; user?: string; name: string; expiresAt?: string; databaseUrl?: string; json?: boolean }) => {
    if (opts.readOnly && !opts.team) throw badRequest("--read-only needs --team: a read-only key belongs to a team.");
    if (opts.scope !== undefined && !(API_KEY_SCOPES as readonly string[]).includes(opts.scope)) {
      throw badRequest(`--scope must be one of ${API_KEY_SCOPES.join(", ")}.`);
    }
    const scope = (opts.scope ?? (opts.team ? (opts.readOnly ? "team_read" : "team") : "organization")) as ApiKeyScope;
    const created = await withServices(opts.databaseUrl, async (s) => {
      if (!(await s.organizations.exists(opts.org))) throw missing(`No organization has the id '${opts.org}'.`);
      return s.database.db.transaction().execute((trx) =>
        s.apiKeys.createKey(trx, opts.org, {
          displayName: opts.name,
          scope,
          teamId: opts.team ?? null,
          userId: opts.user ?? null,
          expiresAt: opts.expiresAt ?? null,
        }),
      );
    });
    output(
      !!opts.json,
      { id: created.id, apiKey: created.key, scope: created.scope, teamId: created.teamId, userId: created.userId },
      `Created ${created.scope} key ${created.id}${created.teamId ? ` for team '${created.teamId}'` : ""}${created.userId ? ` acting as user ${created.userId}` : ""}.\nAPI key (shown once, store it now): ${created.key}`,
    );
  });

const user = program.command("user").description("People who sign in to the web app.");
user
  .command("create")
  .description("Invite a person to an organization (prints a one-time invitation link), or with --password-stdin create the account with that password.")
  .requiredOption("--org <organizationId>", "organization id")
  .requiredOption("--email <email>", "the person's email address")
  .option("--owner", "make the person an owner of the organization (default: member)")
  .option("--password-stdin", "read the password from standard input: creates the account (or sets the password of an existing one) instead of inviting")
  .addOption(databaseOption())
  .option("--json", "print one JSON object")
  .action(async (opts: { org: string; email: string; owner?: boolean; passwordStdin?: boolean; databaseUrl?: string; json?: boolean }) => {
    let password: string | undefined;
    if (opts.passwordStdin) {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      password = Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
    }
    const role = opts.owner ? "owner" : "member";
    const member = await withServices(opts.databaseUrl, async (s) => {
      if (!(await s.organizations.exists(opts.org))) throw missing(`No organization has the id '${opts.org}'.`);
      return s.database.db.transaction().execute((trx) => s.people.addMember(trx, opts.org, opts.email, role, password));
    });
    output(
      !!opts.json,
      { userId: member.userId, email: member.email, organizationId: opts.org, role: member.role, status: member.status, invitationUrl: member.invitationUrl ?? null },
      member.invitationUrl
        ? `${member.email} is invited to organization ${opts.org} as ${member.role === "owner" ? "an owner" : "a member"}.\nSend them this one-time link (valid 24 hours): ${member.invitationUrl}`
        : `${member.email} is ${member.role === "owner" ? "an owner" : "a member"} of organization ${opts.org}; they sign in at /sign-in.`,
    );
  });

registerConsumeCommand(program);
registerConnectorCommands(program);
program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof Problem) {
    process.stderr.write(`error: ${error.detail}\n`);
    for (const v of error.violations ?? []) process.stderr.write(`  ${v.field}: ${v.message}\n`);
    process.exit(1);
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
