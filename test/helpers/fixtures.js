import { readFileSync } from "node:fs";
import { resolve } from "node:path";
/** A document of test/fixtures/standards, as text. */
export function fixture(name) {
    return readFileSync(resolve(process.cwd(), "test/fixtures/standards", name), "utf8");
}
/** The path of a file or folder under test/fixtures. */
export function fixturePath(name) {
    return resolve(process.cwd(), "test/fixtures", name);
}
//# sourceMappingURL=fixtures.js.map