import type { Command } from "commander";
import { ConfigError } from "../platform/config.js";
import { loadConnectorConfig } from "../connectors/postgres/config.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../connectors/postgres/connector.js";
import { addFeedOptions, followFeed, type FeedCommandOptions } from "./feed-options.js";

interface PostgresConnectorOptions extends FeedCommandOptions {
  config?: string;
}

const line = (message: string, fields?: Record<string, unknown>) => `${message} ${JSON.stringify(fields ?? {})}\n`;

export function registerConnectorCommands(program: Command): void {
  const connector = program.command("connector").description("Connectors that act on the event feed.");
  const postgres = connector
    .command("postgres")
    .description(
      "Grant and revoke PostgreSQL privileges as accesses to output ports of type postgres are activated and deactivated, " +
        "and report each step on the access. Only the servers and objects of --config are ever touched; " +
        "credentials are never logged or reported (docs/consumers.md).",
    )
    .option("--config <file>", "YAML or JSON: servers (connection and grantable objects per team), ledger, timeouts");
  addFeedOptions(postgres, { connectorType: "postgres-access", connectorId: "postgres-access" }).action(async (opts: PostgresConnectorOptions) => {
    if (!opts.config) throw new ConfigError("--config <file> is required: it names the servers the connector may use (docs/consumers.md).");
    const access = new PostgresAccessConnector(loadConnectorConfig(opts.config), {
      info: (message, fields) => process.stdout.write(line(message, fields)),
      warn: (message, fields) => process.stderr.write(`warning: ${line(message, fields)}`),
      error: (message, fields) => process.stderr.write(`error: ${line(message, fields)}`),
    });
    try {
      await followFeed(opts, { types: [...HANDLED_KINDS], handler: access.handle });
    } finally {
      await access.close();
    }
  });
}
