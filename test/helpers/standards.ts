import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Ajv } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";
import { standardsDir } from "../conformance/standards-dir.js";

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: unknown) => void;

const compiled = new Map<string, ValidateFunction>();


/**
 * A validator for one of the official standard schemas in STANDARDS_DIR (conformance tests only), with the JSON
 * Schema draft the file declares. Tests only: the server never reads these files.
 */
export function officialSchema(file: string): ValidateFunction {
  let validate = compiled.get(file);
  if (!validate) {
    const schema = JSON.parse(readFileSync(resolve(standardsDir(), file), "utf8")) as Record<string, unknown>;
    const draft = String(schema.$schema ?? "");
    const options = { strict: false, allErrors: true };
    const ajv = draft.includes("2020-12") ? new Ajv2020(options) : draft.includes("draft-07") ? new Ajv(options) : new Ajv2019(options);
    addFormats(ajv);
    validate = ajv.compile(schema);
    compiled.set(file, validate);
  }
  return validate;
}

/** Asserts that `doc` validates against the official schema, showing ajv's errors when not. */
export function expectValid(file: string, doc: unknown): void {
  const validate = officialSchema(file);
  if (!validate(doc)) throw new Error(`not valid against ${file}: ${JSON.stringify(validate.errors, null, 2).slice(0, 4000)}`);
}
