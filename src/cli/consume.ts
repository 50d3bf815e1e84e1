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
    .option(
      "--exec <command>",
      "run this shell command once per event, with the event's JSON on stdin and STEWARD_EVENT_ID, STEWARD_EVENT_KIND and " +
        "STEWARD_EVENT_SUBJECT set (quote them: \"$STEWARD_EVENT_SUBJECT\"); the API key is not passed on",
    )
    .option("--json", "print each event as one line of JSON");
  addFeedOptions(command, { connectorType: "steward-consume" }).action((opts: ConsumeOptions) =>
    followFeed(opts, { types: opts.types, handler: opts.exec ? execHandler(opts.exec) : printHandler(!!opts.json) }),
  );
}

function printHandler(json: boolean): EventHandler {
  return (event) => {
    process.stdout.write(json ? `${terminalSafeJson(event)}\n` : `${[event.time, eventKind(event.type), event.subject, event.id].map(escapeField).join(" ")}\n`);
  };
}

/** Controls, invisible formatting (bidi overrides), line separators, whitespace, and `\` and `"` themselves. */
const UNSAFE_IN_FIELD = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s\\"]/gu;
/** What JSON.stringify leaves raw but a terminal may act on: DEL, C1 controls, format characters, line separators. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/**
 * One field of a summary line, escaped so a hostile id or subject can neither start a forged
 * line, shift the columns, nor reach the terminal as an escape sequence: `\n`, `\t`, `\r`,
 * `\\`, `\xHH` and `\u{H…}` spell what was there. Plain text passes unchanged.
 */
export function escapeField(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  if (text === "") return '""';
  return text.replace(UNSAFE_IN_FIELD, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\t") return "\\t";
    if (c === "\r") return "\\r";
    if (c === "\\") return "\\\\";
    const code = c.codePointAt(0)!;
    return code <= 0xff ? `\\x${hex(code, 2)}` : `\\u{${hex(code, 4)}}`;
  });
}

/** The event as one line of JSON whose text holds no character a terminal acts on (still the same JSON value). */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_IN_JSON, (c) =>
    [...Array(c.length).keys()].map((i) => `\\u${hex(c.charCodeAt(i), 4)}`).join(""),
  );
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
        env: { ...childEnvironment(), STEWARD_EVENT_ID: event.id, STEWARD_EVENT_KIND: eventKind(event.type), STEWARD_EVENT_SUBJECT: event.subject },
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

/** The command's environment: ours without the API key, which the command has no use for. */
function childEnvironment(): NodeJS.ProcessEnv {
  const { STEWARD_API_KEY: _key, ...rest } = process.env;
  return rest;
}

function describe(event: CloudEvent): string {
  return `${event.id} (${eventKind(event.type)} ${event.subject})`;
}
