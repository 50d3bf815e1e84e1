import { parse, Tester, type Filter } from "scim2-parse-filter";
import type { ScimPatchOperation } from "scim-patch";
import { LIST_SCHEMA, MAX_COUNT, PATCH_SCHEMA } from "./discovery.js";
import { ScimError, scimInvalid } from "./errors.js";
import { project, sortResources, type Projection, type Sorting } from "./projection.js";

/** Attributes whose values compare exactly (RFC 7643: ids and external ids are caseExact); all other text ignores case. */
const CASE_EXACT = new Set(["id", "externalid", "value"]);

/** The parser's own evaluation, with RFC 7643's case rule: text compares without case unless the attribute is caseExact. */
class CaseAwareTester extends Tester {
  override test(r: unknown, f: Filter): boolean {
    const compare = f as { attrPath?: string; compValue?: unknown };
    if (typeof compare.compValue === "string" && typeof compare.attrPath === "string") {
      const last = compare.attrPath.split(".").pop()!.toLowerCase();
      if (!CASE_EXACT.has(last)) {
        const lower = (value: unknown): unknown =>
          typeof value === "string" ? value.toLowerCase() : Array.isArray(value) ? value.map(lower) : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lower(v)])) : value;
        return super.test(lower(r), { ...f, compValue: compare.compValue.toLowerCase() } as Filter);
      }
    }
    return super.test(r, f);
  }
}

const compile = (f: Filter) => {
  const tester = new CaseAwareTester();
  return (r: unknown) => tester.test(r, f);
};

/** Helpers every SCIM resource shares: lists with filter and paging, versions, patches, bodies. */

export const etagOf = (version: number) => `W/"${version}"`;

/** Throws 412 unless `If-Match` (when sent) names the resource's current version. */
export function checkIfMatch(ifMatch: string | undefined, version: number): void {
  if (ifMatch === undefined) return;
  const wanted = ifMatch.split(",").map((t) => t.trim());
  if (wanted.includes("*") || wanted.includes(etagOf(version))) return;
  throw new ScimError(412, `The resource has changed: its version is now ${etagOf(version)}.`);
}

export interface ListQuery extends Projection, Sorting {
  filter?: string;
  startIndex?: number;
  count?: number;
}

/**
 * A ListResponse (RFC 7644 §3.4.2): the resources that match `filter`, in the order of `sortBy`,
 * from the 1-based `startIndex`, each with the attributes `attributes`/`excludedAttributes` leave.
 */
export function listResponse<T extends object>(resources: T[], query: ListQuery) {
  let matching = resources;
  if (query.filter !== undefined && query.filter.trim() !== "") {
    if (query.filter.length > 2000) throw scimInvalid("The filter is longer than 2000 characters.", "invalidFilter");
    let test: (r: unknown) => boolean;
    try {
      test = compile(parse(query.filter));
    } catch {
      throw scimInvalid(`The filter '${query.filter}' is not valid.`, "invalidFilter");
    }
    matching = resources.filter((r) => test(r));
  }
  const startIndex = Math.max(1, Math.trunc(query.startIndex ?? 1) || 1);
  const count = Math.min(MAX_COUNT, Math.max(0, Math.trunc(query.count ?? MAX_COUNT)));
  const page = sortResources(matching, query)
    .slice(startIndex - 1, startIndex - 1 + count)
    .map((r) => project(r, query));
  return { schemas: [LIST_SCHEMA], totalResults: matching.length, startIndex, itemsPerPage: page.length, Resources: page };
}

const SEARCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";

/** A SearchRequest body (RFC 7644 §3.4.3, POST …/.search) as the query of a list. */
export function searchRequest(body: unknown): ListQuery {
  const search = objectBody(body);
  if (search.schemas !== undefined && !(Array.isArray(search.schemas) && search.schemas.includes(SEARCH_SCHEMA))) {
    throw scimInvalid(`A search must name the schema ${SEARCH_SCHEMA}.`, "invalidSyntax");
  }
  const text = (name: string): string | undefined => {
    const value = search[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(",");
    throw scimInvalid(`${name} must be a text or a list of texts.`, "invalidSyntax");
  };
  const whole = (name: string, minimum: number): number | undefined => {
    const value = search[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) throw scimInvalid(`${name} must be a whole number of at least ${minimum}.`, "invalidValue");
    return value;
  };
  return {
    filter: text("filter"),
    sortBy: text("sortBy"),
    sortOrder: text("sortOrder"),
    attributes: text("attributes"),
    excludedAttributes: text("excludedAttributes"),
    startIndex: whole("startIndex", 1),
    count: whole("count", 0),
  };
}

/** A JSON object body, or 400 invalidSyntax. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw scimInvalid("The request body must be a JSON object.", "invalidSyntax");
  return body as Record<string, unknown>;
}

/** SCIM booleans some clients send as text ("True", "False"): read as booleans wherever `active` appears. */
function normalizeActive(value: unknown): unknown {
  if (typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  return value;
}

/**
 * A PatchOp body's operations, made uniform: op names in lower case ("Replace" → "replace"), and
 * `active` as a boolean when it arrives as text ("False"), as Microsoft Entra ID sends them.
 */
export function patchOperations(body: unknown): ScimPatchOperation[] {
  const patch = objectBody(body);
  if (!Array.isArray(patch.schemas) || !patch.schemas.includes(PATCH_SCHEMA)) throw scimInvalid(`A PATCH body must name the schema ${PATCH_SCHEMA}.`, "invalidSyntax");
  const operations = patch.Operations ?? patch.operations;
  if (!Array.isArray(operations) || operations.length === 0) throw scimInvalid("A PATCH body must list its Operations.", "invalidSyntax");
  if (operations.length > 1000) throw new ScimError(400, "A PATCH body may hold at most 1000 operations.", "tooMany");
  return operations.flatMap((raw) => {
    const op = objectBody(raw);
    if (typeof op.op !== "string") throw scimInvalid("Every operation needs an op.", "invalidSyntax");
    const name = op.op.toLowerCase();
    let value = op.value;
    if (typeof op.path === "string" && op.path.toLowerCase() === "active") value = normalizeActive(value);
    else if (op.path === undefined && typeof value === "object" && value !== null && !Array.isArray(value) && "active" in value) {
      value = { ...(value as Record<string, unknown>), active: normalizeActive((value as Record<string, unknown>).active) };
    }
    // Entra removes members by value ({op: "Remove", path: "members", value: [{value: id}]}): one filtered remove per member.
    if (name === "remove" && typeof op.path === "string" && op.path.toLowerCase() === "members" && Array.isArray(value)) {
      return value.map((member) => {
        const id = (member as { value?: unknown } | null)?.value;
        if (typeof id !== "string") throw scimInvalid("Every member to remove needs a value.", "invalidValue");
        return { op: "remove", path: `members[value eq ${JSON.stringify(id)}]` } as ScimPatchOperation;
      });
    }
    return [{ ...op, op: name, ...(value !== undefined ? { value } : {}) } as ScimPatchOperation];
  });
}

export { normalizeActive };
