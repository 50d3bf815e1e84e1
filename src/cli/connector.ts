import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { ConfigError } from "../platform/config.js";
import { HANDLED_KINDS, PostgresAccessConnector, type PostgresSettings } from "../connectors/postgres/connector.js";
import { addFeedOptions, followFeed, type FeedCommandOptions } from "./feed-options.js";

interface PostgresConnectorOptions extends FeedCommandOptions {
  config?: string;
}

/** PostgreSQL settings from a JSON file; whatever it leaves out, pg reads from PGHOST, PGUSER, PGPASSWORD… */
function loadSettings(path: string | undefined): PostgresSettings {
  if (!path) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`cannot read the connector configuration ${path}: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new ConfigError(`${path} must hold a JSON object.`);
  const known = ["host", "port", "database", "user", "password", "ssl", "ledgerSchema"];
  const unknown = Object.keys(parsed).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new ConfigError(`${path}: unknown setting(s) ${unknown.join(", ")}; known: ${known.join(", ")}.`);
  return parsed as PostgresSettings;
}

export function registerConnectorCommands(program: Command): void {
  const connector = program.command("connector").description("Connectors that act on the event feed.");
  const postgres = connector
    .command("postgres")
    .description(
      "Grant and revoke PostgreSQL privileges as accesses to output ports of type postgres are activated and deactivated, " +
        "and report each step on the access. Credentials come from --config or the PG* environment variables and are never logged.",
    )
    .option("--config <file>", "JSON with {host, port, database, user, password, ssl, ledgerSchema}");
  addFeedOptions(postgres, { connectorType: "postgres-access", connectorId: "postgres-access" }).action(async (opts: PostgresConnectorOptions) => {
    const access = new PostgresAccessConnector(loadSettings(opts.config), {
      info: (message, fields) => process.stdout.write(`${message} ${JSON.stringify(fields ?? {})}\n`),
      warn: (message, fields) => process.stderr.write(`warning: ${message} ${JSON.stringify(fields ?? {})}\n`),
    });
    try {
      await followFeed(opts, { types: [...HANDLED_KINDS], handler: access.handle });
    } finally {
      await access.close();
    }
  });
}
