import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/** A document of test/fixtures/standards, as text. */
export function fixture(name: string): string {
  return readFileSync(resolve(process.cwd(), "test/fixtures/standards", name), "utf8");
}

/** The path of a file or folder under test/fixtures. */
export function fixturePath(name: string): string {
  return resolve(process.cwd(), "test/fixtures", name);
}
