import { InvalidArgumentError, type Command } from "commander";
import { abortableSleep, StewardClient } from "../consumer/index.js";
import { ConfigError } from "../platform/config.js";
import { loadConnectorConfig } from "../connectors/postgres/config.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../connectors/postgres/connector.js";
import { loadMysqlConfig } from "../connectors/mysql/config.js";
import { MYSQL_KINDS, MysqlAccessConnector } from "../connectors/mysql/connector.js";
import { addFeedOptions, followFeed, type FeedCommandOptions } from "./feed-options.js";

interface PostgresConnectorOptions extends FeedCommandOptions {
  config?: string;
  longPoll?: boolean;
  reconcileInterval: number;
  reportOnly?: boolean;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > 86_400) throw new InvalidArgumentError("expected a whole number of seconds from 1 to 86400.");
  return n;
}

const line = (message: string, fields?: Record<string, unknown>) => `${message} ${JSON.stringify(fields ?? {})}\n`;

/** Reconciles at start and every interval until stopped (with `--once`: once); a failed pass is logged and tried again next time. */
async function reconcileEvery(access: Pick<PostgresAccessConnector, "reconcile">, api: StewardClient, opts: PostgresConnectorOptions, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      await access.reconcile(api, signal, { reportOnly: opts.reportOnly === true });
    } catch (error) {
      if (signal.aborted) return;
      process.stderr.write(`warning: ${line("reconciliation failed; trying again at the next interval", { error: String((error as Error).message ?? error) })}`);
    }
    if (opts.once) return;
    await abortableSleep(opts.reconcileInterval * 1000, signal);
  }
}

/** Follows the feed while reconciling at start and every interval; with `--once`, one pass that finishes before the command does. */
async function followWithReconciliation(
  opts: PostgresConnectorOptions,
  access: Pick<PostgresAccessConnector, "reconcile">,
  consumer: Parameters<typeof followFeed>[1],
): Promise<void> {
  const apiKey = opts.apiKey ?? process.env.STEWARD_API_KEY;
  const stopReconciling = new AbortController();
  const reconciling = apiKey ? reconcileEvery(access, new StewardClient({ baseUrl: opts.url, apiKey }), opts, stopReconciling.signal) : Promise.resolve();
  const stop = () => stopReconciling.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await followFeed(opts, consumer);
    if (opts.once) await reconciling;
  } finally {
    stopReconciling.abort();
    await reconciling;
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

export function registerConnectorCommands(program: Command): void {
  const connector = program.command("connector").description("Connectors that act on the event feed.");
  const postgres = connector
    .command("postgres")
    .description(
      "Grant and revoke PostgreSQL privileges as accesses to output ports of type postgres are activated and deactivated, " +
        "and report each step on the access. Only the servers and objects of --config are ever touched; " +
        "credentials are never logged or reported (docs/consumers.md).",
    )
    .option("--config <file>", "YAML or JSON: servers (connection and grantable objects per team), ledger, timeouts")
    .option("--long-poll", "follow Steward with long polling, so a deactivation is acted on within moments")
    .option("--reconcile-interval <seconds>", "read back the real privileges at start and then this often", seconds, 60)
    .option("--report-only", "report drift found by reconciliation without repairing it");
  addFeedOptions(postgres, { connectorType: "postgres-access", connectorId: "postgres-access" }).action(async (opts: PostgresConnectorOptions) => {
    if (!opts.config) throw new ConfigError("--config <file> is required: it names the servers the connector may use (docs/consumers.md).");
    const access = new PostgresAccessConnector(loadConnectorConfig(opts.config), {
      info: (message, fields) => process.stdout.write(line(message, fields)),
      warn: (message, fields) => process.stderr.write(`warning: ${line(message, fields)}`),
      error: (message, fields) => process.stderr.write(`error: ${line(message, fields)}`),
    });
    try {
      await followWithReconciliation(opts, access, { types: [...HANDLED_KINDS], handler: access.handle, longPolling: opts.longPoll === true });
    } finally {
      await access.close();
    }
  });

  const mysqlCommand = connector
    .command("mysql")
    .description(
      "Grant and revoke MariaDB/MySQL privileges (database, table and column SELECT, roles) as accesses to output ports of type mysql or mariadb " +
        "are activated and deactivated, with the same configuration format and trust model as the PostgreSQL connector (docs/consumers.md).",
    )
    .option("--config <file>", "YAML or JSON: servers (connection and grantable databases per team), ledger, timeouts")
    .option("--long-poll", "follow Steward with long polling, so a deactivation is acted on within moments")
    .option("--reconcile-interval <seconds>", "read back the real privileges at start and then this often", seconds, 60)
    .option("--report-only", "report drift found by reconciliation without repairing it");
  addFeedOptions(mysqlCommand, { connectorType: "mysql-access", connectorId: "mysql-access" }).action(async (opts: PostgresConnectorOptions) => {
    if (!opts.config) throw new ConfigError("--config <file> is required: it names the servers the connector may use (docs/consumers.md).");
    const access = new MysqlAccessConnector(loadMysqlConfig(opts.config), {
      info: (message, fields) => process.stdout.write(line(message, fields)),
      warn: (message, fields) => process.stderr.write(`warning: ${line(message, fields)}`),
      error: (message, fields) => process.stderr.write(`error: ${line(message, fields)}`),
    });
    try {
      await followWithReconciliation(opts, access, { types: [...MYSQL_KINDS], handler: access.handle, longPolling: opts.longPoll === true });
    } finally {
      await access.close();
    }
  });
}
