import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deliverFirstStart } from "./first-start.js";

describe("deliverFirstStart", () => {
  const dir = mkdtempSync(join(tmpdir(), "steward-first-start-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const SECRET = "key stw_secret and link /setup?token=secret";
  const run = (d: { file?: string; databaseUrl?: string; terminal: boolean }) => {
    const printed: string[] = [];
    deliverFirstStart(SECRET, { databaseUrl: `sqlite:${join(dir, "db", "steward.db")}`, ...d, print: (t) => printed.push(t) }, "Make one with steward key create.");
    return printed.join("");
  };

  it("shows the secrets to a person at a terminal", () => {
    expect(run({ terminal: true })).toBe(SECRET);
  });

  it("writes them beside the SQLite database, readable by this user only, and prints only where", () => {
    const printed = run({ terminal: false });
    const path = join(dir, "db", "first-start.txt");
    expect(printed).toContain(path);
    expect(printed).not.toContain("secret");
    expect(readFileSync(path, "utf8")).toBe(SECRET);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("takes FIRST_START_FILE, even at a terminal, and narrows the mode of a file that was there", () => {
    const path = join(dir, "chosen.txt");
    writeFileSync(path, "old");
    chmodSync(path, 0o644);
    expect(run({ file: path, terminal: true })).toContain(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).toBe(SECRET);
  });

  it("says how to make a key instead when the file cannot be written, never printing the secrets", () => {
    const blocker = join(dir, "not-a-directory");
    writeFileSync(blocker, "");
    const printed = run({ file: join(blocker, "first-start.txt"), terminal: false });
    expect(printed).toContain("could not write");
    expect(printed).toContain("steward key create");
    expect(printed).not.toContain("secret");
  });
});
