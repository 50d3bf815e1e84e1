import { scimInvalid } from "./errors.js";

/**
 * Which attributes an answer carries and in which order a list comes (RFC 7644 §3.4.2.3, §3.9;
 * docs/identity.md, "SCIM 2.0 provisioning"). Attribute names compare without case and may be
 * written in full, with the schema's URN in front (`urn:…:User:name.givenName`); an extension's
 * attributes are found under its URN.
 */

/** Attributes every answer keeps, whatever `attributes` or `excludedAttributes` say ("returned": "always"). */
const ALWAYS = new Set(["id", "schemas"]);
/** Attributes whose values sort with case (RFC 7643: ids are caseExact); all other text sorts without. */
const CASE_EXACT = new Set(["id", "externalid", "value"]);
/** The core schemas, whose attributes sit at the top of a resource. */
const CORE_PREFIX = "urn:ietf:params:scim:schemas:core:2.0:";

export interface Projection {
  attributes?: string;
  excludedAttributes?: string;
}

export interface Sorting {
  sortBy?: string;
  sortOrder?: string;
}

type Json = Record<string, unknown>;

/** An attribute name as a path into a resource: `name.givenName` → ["name", "givenname"], an extension's under its URN. */
function pathOf(name: string): string[] {
  const lower = name.trim().toLowerCase();
  if (lower.startsWith("urn:")) {
    const cut = lower.lastIndexOf(":");
    const urn = lower.slice(0, cut);
    const rest = lower.slice(cut + 1).split(".");
    // A core schema's URN names the resource itself; an extension's names the object it keeps its attributes in.
    return urn.startsWith(CORE_PREFIX) ? rest : [urn, ...rest];
  }
  return lower.split(".");
}

/** The attribute names of a comma-separated list (at most 100), as paths. */
function pathsOf(list: string | undefined, parameter: string): string[][] {
  if (list === undefined || list.trim() === "") return [];
  if (list.length > 2000) throw scimInvalid(`${parameter} is longer than 2000 characters.`, "invalidSyntax");
  const names = list.split(",").filter((n) => n.trim() !== "");
  if (names.length > 100) throw scimInvalid(`${parameter} may name at most 100 attributes.`, "tooMany");
  return names.map(pathOf).filter((p) => p.every((s) => s !== ""));
}

/** The key of `object` that is `name` without case. */
function keyOf(object: Json, name: string): string | undefined {
  return Object.keys(object).find((k) => k.toLowerCase() === name);
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Copies the value at `path` of `from` into `to`, merging with what `to` has there already. */
function copyPath(from: Json, to: Json, path: string[]): void {
  const key = keyOf(from, path[0]!);
  if (key === undefined) return;
  const value = from[key];
  if (path.length === 1) {
    to[key] = value;
    return;
  }
  const rest = path.slice(1);
  if (isObject(value)) {
    const target = isObject(to[key]) ? (to[key] as Json) : {};
    copyPath(value, target, rest);
    if (Object.keys(target).length > 0) to[key] = target;
  } else if (Array.isArray(value)) {
    // A sub-attribute of a multi-valued attribute: that sub-attribute of each of its values.
    const before = Array.isArray(to[key]) ? (to[key] as unknown[]) : [];
    const picked = value.map((item, i) => {
      const target = isObject(before[i]) ? (before[i] as Json) : {};
      if (isObject(item)) copyPath(item, target, rest);
      return target;
    });
    if (picked.some((p) => Object.keys(p).length > 0)) to[key] = picked;
  }
}

/** Removes the value at `path` of `object` (each value's, for a multi-valued attribute). */
function removePath(object: Json, path: string[]): void {
  const key = keyOf(object, path[0]!);
  if (key === undefined) return;
  if (path.length === 1) {
    delete object[key];
    return;
  }
  const value = object[key];
  const rest = path.slice(1);
  if (isObject(value)) removePath(value, rest);
  else if (Array.isArray(value)) for (const item of value) if (isObject(item)) removePath(item, rest);
}

/**
 * A resource with only the attributes `attributes` names (and those always returned), then
 * without those `excludedAttributes` names. Neither touches `id` or `schemas`.
 */
export function project<T extends object>(resource: T, projection: Projection): Json {
  const included = pathsOf(projection.attributes, "attributes");
  const excluded = pathsOf(projection.excludedAttributes, "excludedAttributes").filter((p) => !(p.length === 1 && ALWAYS.has(p[0]!)));
  if (included.length === 0 && excluded.length === 0) return resource as Json;
  let result: Json = structuredClone(resource) as Json;
  if (included.length > 0) {
    const kept: Json = {};
    for (const key of Object.keys(result)) if (ALWAYS.has(key.toLowerCase())) kept[key] = result[key];
    for (const path of included) copyPath(result, kept, path);
    result = kept;
  }
  for (const path of excluded) removePath(result, path);
  return result;
}

/** The value a resource sorts by: for a multi-valued attribute its primary value, else its first. */
function sortValue(resource: unknown, path: string[]): unknown {
  let value: unknown = resource;
  for (const segment of path) {
    if (Array.isArray(value)) value = value.find((v) => isObject(v) && v.primary === true) ?? value[0];
    if (!isObject(value)) return undefined;
    const key = keyOf(value, segment);
    value = key === undefined ? undefined : value[key];
  }
  if (Array.isArray(value)) value = value.find((v) => isObject(v) && v.primary === true) ?? value[0];
  if (isObject(value)) value = value.value;
  return value === null ? undefined : value;
}

/**
 * The resources in the order `sortBy` and `sortOrder` ask for (ascending unless told). Text sorts
 * without case unless the attribute is caseExact; resources without a value come last either way.
 */
export function sortResources<T extends object>(resources: T[], sorting: Sorting): T[] {
  if (sorting.sortBy === undefined || sorting.sortBy.trim() === "") return resources;
  if (sorting.sortBy.length > 500) throw scimInvalid("sortBy is longer than 500 characters.", "invalidSyntax");
  const order = (sorting.sortOrder ?? "ascending").toLowerCase();
  if (order !== "ascending" && order !== "descending") throw scimInvalid(`sortOrder must be "ascending" or "descending", not '${sorting.sortOrder}'.`, "invalidValue");
  const path = pathOf(sorting.sortBy);
  const exact = CASE_EXACT.has(path[path.length - 1]!);
  const keyed = resources.map((resource) => {
    const raw = sortValue(resource, path);
    return { resource, key: typeof raw === "string" && !exact ? raw.toLowerCase() : raw };
  });
  const sign = order === "ascending" ? 1 : -1;
  keyed.sort((a, b) => {
    if (a.key === undefined || b.key === undefined) return a.key === b.key ? 0 : a.key === undefined ? 1 : -1;
    if (typeof a.key === "number" && typeof b.key === "number") return sign * (a.key - b.key);
    if (typeof a.key === "boolean" && typeof b.key === "boolean") return sign * (Number(a.key) - Number(b.key));
    const x = String(a.key);
    const y = String(b.key);
    return sign * (x < y ? -1 : x > y ? 1 : 0);
  });
  return keyed.map((k) => k.resource);
}
