import { existsSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The folder of official standard schemas and the reference product's description, read only by
 * the conformance suite (`npm run test:conformance`). `STANDARDS_DIR` names it; the default is
 * `../shared/standards` beside the repository. A missing folder is an error, never a skip.
 */
export function standardsDir(): string {
  const dir = resolve(process.cwd(), process.env.STANDARDS_DIR ?? "../shared/standards");
  if (!existsSync(dir)) {
    throw new Error(
      `The conformance tests need the official standard schemas, and ${dir} does not exist. ` +
        "Set STANDARDS_DIR to the folder that holds them (odcs-json-schema-v3.*.json, odps-json-schema-v1.*.json, entropy-data-openapi.yaml, …).",
    );
  }
  return dir;
}
