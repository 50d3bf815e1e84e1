import { Command, InvalidArgumentError, Option } from "commander";
import { VERSION } from "../platform/version.js";
import { ConfigError } from "../platform/config.js";
import { ConnectorPositionStore, FeedConsumer, FilePositionStore, MemoryPositionStore, type FeedConsumerOptions, type PositionStore } from "../consumer/index.js";

/** Options every command that follows the feed shares. */
export interface FeedCommandOptions {
  url: string;
  apiKey?: string;
  positionFile?: string;
  connectorId?: string;
  connectorType: string;
  emptyWaitMs?: number;
  errorWaitMs?: number;
  once?: boolean;
}

export function addFeedOptions(command: Command, defaults: { connectorType: string; connectorId?: string }): Command {
  return command
    .option("--url <baseUrl>", "where Steward serves", "http://localhost:8080")
    .option("--api-key <key>", "API key (default: STEWARD_API_KEY)")
    .addOption(new Option("--position-file <path>", "keep the position in this file").conflicts("connectorId"))
    .option("--connector-id <id>", "keep the position in Steward as this connector's state (organization keys)", defaults.connectorId)
    .option("--connector-type <type>", "info.type of the connector registered by --connector-id", defaults.connectorType)
    .option("--empty-wait-ms <ms>", "wait after an empty batch (default 10000)", milliseconds)
    .option("--error-wait-ms <ms>", "wait after a server error or network failure (default 60000)", milliseconds)
    .option("--once", "stop when the feed is caught up instead of waiting for more");
}

function positionStore(opts: FeedCommandOptions, apiKey: string): PositionStore {
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

/** Follows the feed with `handler` until SIGINT/SIGTERM, `--once` catching up, or an error that stops it. */
export async function followFeed(
  opts: FeedCommandOptions,
  consumer: Pick<FeedConsumerOptions, "handler" | "types"> & Partial<FeedConsumerOptions>,
): Promise<void> {
  const apiKey = opts.apiKey ?? process.env.STEWARD_API_KEY;
  if (!apiKey) throw new ConfigError("an API key is required: pass --api-key or set STEWARD_API_KEY.");
  if (opts.apiKey !== undefined) hideArguments();
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await new FeedConsumer({
      baseUrl: opts.url,
      apiKey,
      store: positionStore(opts, apiKey),
      emptyWaitMs: opts.emptyWaitMs,
      errorWaitMs: opts.errorWaitMs,
      stopWhenCaughtUp: opts.once,
      signal: controller.signal,
      logger: { warn: (message) => process.stderr.write(`warning: ${message}\n`) },
      ...consumer,
    }).run();
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

/**
 * A key given as an argument is readable by every process on the machine (`ps`,
 * `/proc/<pid>/cmdline`), the `--exec` commands included. Setting the process title writes over the
 * memory those read on Linux and macOS, so the key stays visible only for the moment between start
 * and here; STEWARD_API_KEY never shows there at all.
 */
function hideArguments(): void {
  process.title = "steward";
}

export function list(value: string): string[] {
  const items = value.split(",").map((item) => item.trim()).filter(Boolean);
  if (items.length === 0) throw new InvalidArgumentError("expected one or more comma-separated values.");
  return items;
}

function milliseconds(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(ms)) throw new InvalidArgumentError("expected a whole number of milliseconds.");
  return ms;
}
