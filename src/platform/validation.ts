import { Ajv, type ErrorObject, type Options } from "ajv";
import type { FieldViolation } from "./errors.js";
import { renderPath, type Segment } from "./paths.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS with a default export; under NodeNext the function sits on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;

/** An ajv instance with the standard formats. */
export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, ...options });
  addFormats(ajv);
  return ajv;
}

/**
 * Violations in Steward's words from ajv's errors of a standard's schema: one per problem, with
 * the path of the offending member. A failed `oneOf`/`anyOf` is reported once, with the
 * schema's `x-message`, instead of once per alternative; `if` errors only echo their `then`.
 */
export function standardViolations(errors: readonly ErrorObject[] | null | undefined, base = ""): FieldViolation[] {
  if (!errors) return [];
  const alternatives = errors.filter((e) => e.keyword === "oneOf" || e.keyword === "anyOf").map((e) => `${e.schemaPath}/`);
  const seen = new Set<string>();
  const violations: FieldViolation[] = [];
  for (const error of errors) {
    if (error.keyword === "if") continue;
    if (alternatives.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    const segments = error.instancePath
      .split("/")
      .slice(1)
      .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"))
      .map((s): Segment => (/^\d+$/.test(s) ? Number(s) : s));
    const params = error.params as Record<string, unknown>;
    let message: string;
    switch (error.keyword) {
      case "required":
        segments.push(String(params.missingProperty));
        message = "is required";
        break;
      case "additionalProperties":
      case "unevaluatedProperties":
        segments.push(String(params.additionalProperty ?? params.unevaluatedProperty));
        message = "is not a member the standard allows here (extensions belong in customProperties)";
        break;
      case "enum":
        message = `must be one of: ${(params.allowedValues as unknown[]).join(", ")}`;
        break;
      case "const":
        message = `must be ${JSON.stringify(params.allowedValue)}`;
        break;
      case "oneOf":
      case "anyOf": {
        const own = (error.parentSchema as Record<string, unknown> | undefined)?.["x-message"];
        message = typeof own === "string" ? own : "does not match any form the standard allows";
        break;
      }
      case "format":
        message = `must be a valid ${String(params.format)}`;
        break;
      default:
        message = error.message ?? "is invalid";
    }
    const field = renderPath(base, segments);
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push({ field, message });
  }
  return violations;
}
