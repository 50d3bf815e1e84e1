import { closeSync, fchmodSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Where the first key and setup link of a new installation go (docs/product.md §1: written for a
 * person, never as a log line). A person at a terminal reads them there. Without one, standard
 * error is somebody's log (a process manager's journal, a container's log), so they go into a file
 * only this user may read, and standard error says where.
 */
export interface FirstStartDelivery {
  /** FIRST_START_FILE: always this file, terminal or not. */
  file?: string;
  databaseUrl: string;
  /** Whether standard error is a terminal. */
  terminal: boolean;
  print: (text: string) => void;
}

/** Beside an SQLite database's file, else in the working directory. */
function defaultFile(databaseUrl: string): string {
  const sqlite = /^sqlite:(.+)$/.exec(databaseUrl)?.[1];
  return sqlite !== undefined && sqlite !== ":memory:" ? join(dirname(resolve(sqlite)), "first-start.txt") : resolve("steward-first-start.txt");
}

/** Writes `text` to a file that only this user may read: its mode is set before a byte of the secret is in it. */
function writePrivate(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, "w", 0o600);
  try {
    // A file that existed keeps its mode through open: set it before writing.
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Delivers the first-start text (`secret`), or, when it cannot be written where it must go, says
 * how to make a key and a setup link instead: the secrets are never printed where a log would
 * keep them.
 */
export function deliverFirstStart(secret: string, d: FirstStartDelivery, instead: string): void {
  if (d.file === undefined && d.terminal) return d.print(secret);
  const path = resolve(d.file ?? defaultFile(d.databaseUrl));
  try {
    writePrivate(path, secret);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return d.print(`\nSteward could not write its first API key and setup link to ${path} (${reason}).\n${instead}\n\n`);
  }
  d.print(
    `\nSteward wrote the first API key and a one-time setup link of organization 'default' to\n\n    ${path}\n\n` +
      "(readable by this user only; standard error is not a terminal, so they are not shown here). Store the key, then delete the file.\n\n",
  );
}
