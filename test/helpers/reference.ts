import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";
import { parse } from "yaml";
import { standardsDir } from "../conformance/standards-dir.js";

/**
 * The reference product's OpenAPI description (in STANDARDS_DIR; conformance tests only), and
 * checks of Steward's answers against the response schemas it gives for the same operation.
 */
const BASE = "https://reference.invalid/";

// The description points at the standards' JSON Schemas under names of its own.
const EXTERNAL: Record<string, string> = {
  "schemas/dataproduct-0.0.1.json": "dataproduct-specification-0.0.1.json",
  "schemas/odps-json-schema-v1.0.0.json": "odps-json-schema-v1.0.0.json",
  "schemas/odcs-json-schema-v3.1.0.json": "odcs-json-schema-v3.1.0.json",
};

export interface ReferenceOperation {
  method: string;
  /** The path as the description writes it, e.g. `/api/assets/{id}`. */
  path: string;
  operationId?: string;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

let loaded: { doc: any; ajv: Ajv2020 } | undefined;

function reference() {
  if (loaded) return loaded;
  const doc = parse(readFileSync(path.join(standardsDir(), "entropy-data-openapi.yaml"), "utf8"));
  const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  for (const [ref, file] of Object.entries(EXTERNAL)) {
    const { $schema: _schema, $id: _id, ...schema } = JSON.parse(readFileSync(path.join(standardsDir(), file), "utf8"));
    ajv.addSchema({ ...schema, $id: BASE + ref });
  }
  ajv.addSchema({ $id: BASE + "openapi.json", components: doc.components });
  loaded = { doc, ajv };
  return loaded;
}

const METHODS = ["get", "put", "post", "delete", "patch"];

/** Every operation of the reference description. */
export function referenceOperations(): ReferenceOperation[] {
  const { doc } = reference();
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path: p, operationId: item[m].operationId, responses: item[m].responses ?? {} })),
  );
}

const compiled = new Map<string, ValidateFunction | null>();

/**
 * Checks `body` against the reference's JSON schema for this operation and status. Returns the
 * problems (none: valid), or throws when the reference has no such operation or answer schema.
 */
export function referenceViolations(method: string, templatePath: string, status: number, body: unknown): string[] {
  const key = `${method} ${templatePath} ${status}`;
  if (!compiled.has(key)) {
    const { doc, ajv } = reference();
    const op = doc.paths?.[templatePath]?.[method.toLowerCase()];
    if (!op) throw new Error(`The reference has no operation ${method} ${templatePath}`);
    // The feed answers application/cloudevents-batch+json; any JSON media type counts.
    let answer = op.responses?.[String(status)];
    // Shared answers (NotFound, UnprocessableEntity, ...) are references into components/responses.
    if (typeof answer?.$ref === "string") answer = doc.components?.responses?.[answer.$ref.split("/").pop()];
    const content: Record<string, { schema?: unknown }> = answer?.content ?? {};
    const media = "application/json" in content ? "application/json" : Object.keys(content).find((type) => /\+json$/.test(type));
    const schema = media === undefined ? undefined : content[media]?.schema;
    compiled.set(key, schema === undefined ? null : ajv.compile(rebase(schema) as object));
  }
  const validate = compiled.get(key);
  if (!validate) throw new Error(`The reference gives no JSON schema for ${key}`);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

/** Checks `value` against a named schema of the description's components, e.g. `AccessActivatedEvent`. */
export function referenceComponentViolations(name: string, value: unknown): string[] {
  referenceSchema(name);
  const key = `#/components/schemas/${name}`;
  if (!compiled.has(key)) compiled.set(key, reference().ajv.compile({ $ref: `${BASE}openapi.json${key}` }));
  const validate = compiled.get(key)!;
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

/** A named schema of the description's components, e.g. `Access`, as the description writes it. */
export function referenceSchema(name: string): any {
  const schema = reference().doc.components?.schemas?.[name];
  if (!schema) throw new Error(`The reference has no schema ${name}`);
  return schema;
}

/** Local `#/components/...` references of an inline schema, pointed at the loaded description. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${BASE}openapi.json${v}` : rebase(v)]),
  );
}
