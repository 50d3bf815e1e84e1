import { spawn } from "node:child_process";
import type { Command } from "commander";
import { eventKind, type CloudEvent, type EventHandler } from "../consumer/index.js";
import { addFeedOptions, followFeed, list, type FeedCommandOptions } from "./feed-options.js";

interface ConsumeOptions extends FeedCommandOptions {
  types?: string[];
  exec?: string;
  json?: boolean;
}

/** `steward consume`: the feed consumer library as a command. */
export function registerConsumeCommand(program: Command): void {
  const command = program
    .command("consume")
    .description(
      "Read the event feed of the key's organization and print each event, or hand it to --exec. " +
        "Runs until SIGINT/SIGTERM (exit 0); stops with exit 1 on a 4xx answer or a failing --exec.",
    )
    .option("--types <kinds>", "only these event kinds, comma-separated, e.g. AccessActivatedEvent,AccessDeactivatedEvent", list)
    .option("--exec <command>", "run this shell command once per event, with the event's JSON on stdin")
    .option("--json", "print each event as one line of JSON");
  addFeedOptions(command, { connectorType: "steward-consume" }).action((opts: ConsumeOptions) =>
    followFeed(opts, { types: opts.types, handler: opts.exec ? execHandler(opts.exec) : printHandler(!!opts.json) }),
  );
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
