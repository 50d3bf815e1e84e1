import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/** A document of test/fixtures/standards, as text. */
export function fixture(name: string): string {
  return readFileSync(resolve(process.cwd(), "test/fixtures/standards", name), "utf8");
}
