import type { FastifyServerOptions } from "fastify";
import { buildApp } from "./app.js";
import { cliCommand } from "./platform/command-name.js";
import { CONTRACT_FORMATS } from "./contract-formats/index.js";
import { PRODUCT_FORMATS } from "./product-formats/index.js";
import { commitRelay } from "./events/notifier.js";
import { keyLeaseFeed } from "./modules/api-keys/key-lease.js";
import type { Config } from "./platform/config.js";
import { systemClock, type Clock } from "./platform/clock.js";
import { openDatabase } from "./platform/database/index.js";
import { PostgresListener } from "./platform/database/drivers/pg-listener.js";
import { migrateToLatest } from "./platform/database/migrations/index.js";
import type { App } from "./platform/http/types.js";
import { createServices, type Services } from "./services.js";
import { AccessScheduler } from "./modules/access/scheduler.js";
import { EventStatistics } from "./events/engine/statistics.js";
import { deliverFirstStart, type FirstStartDelivery } from "./first-start.js";

export interface RunningServer {
  app: App;
  scheduler: AccessScheduler;
  services: Services;
  /** The address it listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  logger?: FastifyServerOptions["logger"];
  /**
   * Where the first-start message goes: standard error by default, as plain text for the person
   * at the terminal, apart from the JSON log lines on standard output.
   */
  print?: (text: string) => void;
}

/** What `steward serve` runs: migrate, bootstrap, listen. `close` stops in the order SIGTERM needs. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const services = createServices(config, database, options.clock ?? systemClock);
  const app = await buildApp(services, { logger: options.logger });
  const listener = database.dialect === "postgres" ? new PostgresListener(config.databaseUrl, app.log) : undefined;
  listener?.subscribe(commitRelay(services.events));
  if (listener && services.apiKeys.lease) listener.subscribe(keyLeaseFeed(listener, services.apiKeys.lease));
  const scheduler = new AccessScheduler(database, services.access, services.clock, config.schedulerIntervalMs, app.log);
  const statistics = new EventStatistics(database, app.log);
  /** Stops everything started here, in the order SIGTERM needs; also what a failed start undoes. */
  const stopAll = async (): Promise<void> => {
    await services.notificationEngine.stop();
    await services.lineage.retention.stop();
    await services.usage.retention.stop();
    await scheduler.stop();
    await statistics.stop();
    // Fastify stops accepting, answers held long polls (preClose) and waits for in-flight requests.
    await app.close();
    await services.policyEnforcement.runner.close();
    await services.events.stop();
    await listener?.stop();
    await database.close();
  };
  try {
    await listener?.start();
    if (config.bootstrap) {
      await bootstrap(services, {
        file: config.firstStartFile,
        databaseUrl: config.databaseUrl,
        terminal: options.print !== undefined || process.stderr.isTTY === true,
        print: options.print ?? ((text) => process.stderr.write(text)),
      });
    }
    // Compile the document validators now, so that no request pays for it on the event loop.
    for (const format of [...CONTRACT_FORMATS, ...PRODUCT_FORMATS]) format.validate({ id: "warm-up" });
    await app.listen({ port: config.port, host: config.host });
    scheduler.start();
    statistics.start();
    services.events.start(app.log);
    services.identity.mappedTeams.setLog(app.log);
    services.notificationEngine.start(app.log);
    services.lineage.retention.start(app.log);
    services.usage.retention.start(app.log);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    app,
    scheduler,
    services,
    url: `http://${host}:${port}`,
    close: () =>
      (closing ??= stopAll()),
  };
}

/** On an empty database, creates organization `default` and shows its first key, once. */
async function bootstrap(services: Services, delivery: FirstStartDelivery): Promise<void> {
  if (await services.organizations.any()) return;
  const created = await services.organizations.createIfAbsent("default");
  if (!created) return; // another process sharing the database got there first
  const { appUrl } = services.config;
  const setupUrl = await services.people.invitations.createSetupLink(services.database.db, created.organizationId);
  deliverFirstStart(
    [
      "",
      "Steward created organization 'default' and its first API key:",
      "",
      `    ${created.apiKey}`,
      "",
      "It is shown this once; store it now. Use it in the x-api-key header, for example:",
      "",
      `    curl -H 'x-api-key: ${created.apiKey}' ${appUrl}/api/teams`,
      "",
      `More keys: \`${cliCommand()} key create --org ${created.organizationId}\` or POST /api/api-keys.`,
      "",
      "To use the web app, open this one-time link (valid 24 hours) to choose the first owner's email and password:",
      "",
      `    ${setupUrl}`,
      "",
      `(Or: ${cliCommand()} user create --org ${created.organizationId} --email you@example.com --owner)`,
      "",
      "",
    ].join("\n"),
    delivery,
    `Make a key with \`${cliCommand()} key create --org ${created.organizationId}\` and a setup link with \`${cliCommand()} user create --org ${created.organizationId} --email you@example.com --owner\`.`,
  );
}
