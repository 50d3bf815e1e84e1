import { spawn } from "node:child_process";
import { Command, InvalidArgumentError, Option } from "commander";
import { VERSION } from "../app.js";
import { ConfigError } from "../platform/config.js";
import {
  ConnectorPositionStore,
  eventKind,
  FeedConsumer,
  FilePositionStore,
  MemoryPositionStore,
  type CloudEvent,
  type EventHandler,
  type PositionStore,
} from "../consumer/index.js";

interface ConsumeOptions {
  url: string;
  apiKey?: string;
  positionFile?: string;
  connectorId?: string;
  connectorType: string;
  types?: string[];
  exec?: string;
  json?: boolean;
  emptyWaitMs?: number;
  errorWaitMs?: number;
}

/** `steward consume`: the feed consumer library as a command. */
export function registerConsumeCommand(program: Command): void {
  program
    .command("consume")
    .description(
      "Read the event feed of the key's organization and print each event, or hand it to --exec. " +
        "Runs until SIGINT/SIGTERM (exit 0); stops with exit 1 on a 4xx answer or a failing --exec.",
    )
    .option("--url <baseUrl>", "where Steward serves", "http://localhost:8080")
    .option("--api-key <key>", "organization or team API key (default: STEWARD_API_KEY)")
    .addOption(new Option("--position-file <path>", "keep the position in this file").conflicts("connectorId"))
    .option("--connector-id <id>", "keep the position in Steward as this connector's state (organization keys)")
    .option("--connector-type <type>", "info.type of the connector registered by --connector-id", "steward-consume")
    .option("--types <kinds>", "only these event kinds, comma-separated, e.g. AccessActivatedEvent,AccessDeactivatedEvent", list)
    .option("--exec <command>", "run this shell command once per event, with the event's JSON on stdin")
    .option("--json", "print each event as one line of JSON")
    .option("--empty-wait-ms <ms>", "wait after an empty batch (default 10000)", milliseconds)
    .option("--error-wait-ms <ms>", "wait after a server error or network failure (default 60000)", milliseconds)
    .action(consume);
}

async function consume(opts: ConsumeOptions): Promise<void> {
  const apiKey = opts.apiKey ?? process.env.STEWARD_API_KEY;
  if (!apiKey) throw new ConfigError("an API key is required: pass --api-key or set STEWARD_API_KEY.");

  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await new FeedConsumer({
      baseUrl: opts.url,
      apiKey,
      store: positionStore(opts, apiKey),
      types: opts.types,
      emptyWaitMs: opts.emptyWaitMs,
      errorWaitMs: opts.errorWaitMs,
      signal: controller.signal,
      handler: opts.exec ? execHandler(opts.exec) : printHandler(!!opts.json),
      logger: { warn: (message) => process.stderr.write(`warning: ${message}\n`) },
    }).run();
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

function positionStore(opts: ConsumeOptions, apiKey: string): PositionStore {
  if (opts.positionFile) return new FilePositionStore(opts.positionFile);
  if (opts.connectorId) {
    return new ConnectorPositionStore({
      baseUrl: opts.url,
      apiKey,
      connectorId: opts.connectorId,
      info: { type: opts.connectorType, connectorVersion: VERSION },
    });
  }
  return new MemoryPositionStore();
}

function printHandler(json: boolean): EventHandler {
  return (event) => {
    process.stdout.write(json ? `${JSON.stringify(event)}\n` : `${event.time} ${eventKind(event.type)} ${event.subject} ${event.id}\n`);
  };
}

/**
 * Runs `command` through the shell with the event on stdin. A stop signal is passed on to the
 * command; if it then fails, the event counts as not processed and the consumer stops cleanly.
 */
function execHandler(command: string): EventHandler {
  return (event, { signal }) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(command, {
        shell: true,
        stdio: ["pipe", "inherit", "inherit"],
        env: { ...process.env, STEWARD_EVENT_ID: event.id, STEWARD_EVENT_KIND: eventKind(event.type), STEWARD_EVENT_SUBJECT: event.subject },
      });
      const forward = () => child.kill("SIGTERM");
      signal.addEventListener("abort", forward, { once: true });
      // A command that does not read its stdin closes the pipe early: not an error.
      child.stdin.on("error", () => {});
      child.stdin.end(`${JSON.stringify(event)}\n`);
      child.on("error", (error) => {
        signal.removeEventListener("abort", forward);
        reject(error);
      });
      child.on("close", (code, signalName) => {
        signal.removeEventListener("abort", forward);
        if (code === 0) return resolve();
        if (signal.aborted) return reject(signal.reason);
        reject(new Error(`--exec command ${signalName ? `was killed by ${signalName}` : `exited with code ${code}`} on event ${describe(event)}; the position stays before it.`));
      });
    });
}

function describe(event: CloudEvent): string {
  return `${event.id} (${eventKind(event.type)} ${event.subject})`;
}

function list(value: string): string[] {
  const kinds = value.split(",").map((kind) => kind.trim()).filter(Boolean);
  if (kinds.length === 0) throw new InvalidArgumentError("expected one or more comma-separated event kinds.");
  return kinds;
}

function milliseconds(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(ms)) throw new InvalidArgumentError("expected a whole number of milliseconds.");
  return ms;
}
