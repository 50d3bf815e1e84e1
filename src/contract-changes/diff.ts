import { isDeepStrictEqual } from "node:util";
import { joinPath } from "../platform/paths.js";
import type { NormalizedField, NormalizedModel, QualityRule } from "../schema-formats/types.js";
import { CHANGE_RULES, type ChangeKind, type ContractChange } from "./rules.js";
import { compareTypes } from "./type-compatibility.js";

/**
 * The differences between two versions of a contract, computed on normalized models, so that a
 * change is judged the same whether the contract is ODCS, DCS, dbt, BigQuery, JSON Schema or Avro.
 * Models and fields are matched by name; a removed and an added one of the same shape at the same
 * place are reported as a rename. The work is linear in the size of both versions.
 */
export function diffModels(before: readonly NormalizedModel[], after: readonly NormalizedModel[]): ContractChange[] {
  const changes: ContractChange[] = [];
  const add = (change: ChangeKind, path: string, message: string, values: { before?: unknown; after?: unknown } = {}) =>
    changes.push({ path, change, breaking: CHANGE_RULES[change].breaking, ...values, message });

  const { matched, removed, added } = match(before, after, (m) => m.name);
  for (const [old, renamed] of pairRenames(removed, added, modelShape)) {
    add("model-renamed", old.name, `Model '${old.name}' was renamed to '${renamed.name}'.`, { before: old.name, after: renamed.name });
    compareModel(old, renamed, renamed.name, add);
  }
  for (const model of removed) add("model-removed", model.name, `Model '${model.name}' was removed.`, { before: model.name });
  for (const model of added) add("model-added", model.name, `Model '${model.name}' was added.`, { after: model.name });
  for (const [old, now] of matched) compareModel(old, now, now.name, add);
  return changes;
}

type Add = (change: ChangeKind, path: string, message: string, values?: { before?: unknown; after?: unknown }) => void;

function compareModel(before: NormalizedModel, after: NormalizedModel, path: string, add: Add): void {
  if (before.kind !== after.kind) {
    add("model-kind-changed", path, `Model '${after.name}' is now a ${after.kind.replace("_", " ")} instead of a ${before.kind.replace("_", " ")}.`, {
      before: before.kind,
      after: after.kind,
    });
  }
  if ((before.description ?? "") !== (after.description ?? "")) {
    add("model-description-changed", path, `The description of model '${after.name}' changed.`, { before: before.description, after: after.description });
  }
  compareRules(rulesOf(before), rulesOf(after), path, `model '${after.name}'`, add);
  compareFieldLists(before.fields, after.fields, path, add);
}

function compareFieldLists(before: readonly NormalizedField[], after: readonly NormalizedField[], parent: string, add: Add): void {
  const { matched, removed, added } = match(before, after, (f) => f.name);
  for (const [old, renamed] of pairRenames(removed, added, fieldShape)) {
    add("field-renamed", joinPath(parent, old.name), `Field '${joinPath(parent, old.name)}' was renamed to '${renamed.name}'.`, { before: old.name, after: renamed.name });
    compareField(old, renamed, joinPath(parent, renamed.name), add);
  }
  for (const field of removed) add("field-removed", joinPath(parent, field.name), `Field '${joinPath(parent, field.name)}' was removed.`, { before: field.name });
  for (const field of added) {
    const path = joinPath(parent, field.name);
    if (field.required) add("field-added-required", path, `Required field '${path}' was added: records written under the previous version do not have it.`, { after: field.name });
    else add("field-added-optional", path, `Optional field '${path}' was added.`, { after: field.name });
  }
  for (const [old, now] of matched) compareField(old, now, joinPath(parent, now.name), add);
}

function compareField(before: NormalizedField, after: NormalizedField, path: string, add: Add): void {
  const typeBefore = describeType(before);
  const typeAfter = describeType(after);
  // A collection's own spelling (ARRAY<INT64>) follows its element, which is compared below.
  const collection = before.items !== undefined && after.items !== undefined && before.type === after.type;
  const verdict = collection ? "same" : before.ref !== after.ref ? (before.ref === undefined || after.ref === undefined ? compareTypes(before, after) : "incompatible") : compareTypes(before, after);
  if (verdict === "incompatible") add("type-changed", path, `The type of '${path}' changed from ${typeBefore} to ${typeAfter}, which existing values or readers may not fit.`, { before: typeBefore, after: typeAfter });
  else if (verdict === "widened") add("type-widened", path, `The type of '${path}' widened from ${typeBefore} to ${typeAfter}.`, { before: typeBefore, after: typeAfter });
  else if (verdict === "respelled") add("physical-type-respelled", path, `The physical type of '${path}' is now spelled ${after.physicalType} instead of ${before.physicalType}.`, { before: before.physicalType, after: after.physicalType });

  if (before.required !== after.required) {
    if (after.required) add("made-required", path, `'${path}' is now required: values that were absent before are no longer allowed.`, { before: false, after: true });
    else add("made-optional", path, `'${path}' is no longer required: consumers may now receive no value.`, { before: true, after: false });
  }
  if ((before.description ?? "") !== (after.description ?? "")) add("field-description-changed", path, `The description of '${path}' changed.`, { before: before.description, after: after.description });
  if ((before.classification ?? "") !== (after.classification ?? "")) {
    add("classification-changed", path, `The classification of '${path}' changed from ${before.classification ?? "none"} to ${after.classification ?? "none"}.`, { before: before.classification, after: after.classification });
  }
  if (!!before.primaryKey !== !!after.primaryKey) {
    add("primary-key-changed", path, `'${path}' is ${after.primaryKey ? "now" : "no longer"} part of the primary key.`, { before: !!before.primaryKey, after: !!after.primaryKey });
  }
  if (!!before.unique !== !!after.unique) {
    if (after.unique) add("unique-added", path, `'${path}' must now be unique: existing duplicates would break the contract.`, { before: false, after: true });
    else add("unique-removed", path, `'${path}' is no longer guaranteed to be unique.`, { before: true, after: false });
  }
  compareAllowedValues(before, after, path, add);
  compareLengths(before, after, path, add);
  comparePrecision(before, after, path, add);
  if ((before.pattern ?? "") !== (after.pattern ?? "")) {
    if (after.pattern === undefined) add("pattern-removed", path, `'${path}' no longer has to match a pattern.`, { before: before.pattern });
    else add("pattern-tightened", path, `'${path}' must now match ${after.pattern}${before.pattern === undefined ? "" : ` instead of ${before.pattern}`}.`, { before: before.pattern, after: after.pattern });
  }
  compareRules(rulesOf(before), rulesOf(after), path, `'${path}'`, add);

  if (before.fields || after.fields) compareFieldLists(before.fields ?? [], after.fields ?? [], path, add);
  if (before.items && after.items) compareField(before.items, after.items, `${path}[]`, add);
}

function compareAllowedValues(before: NormalizedField, after: NormalizedField, path: string, add: Add): void {
  const old = allowedValues(before);
  const now = allowedValues(after);
  if (old === undefined && now === undefined) return;
  const key = (v: unknown) => JSON.stringify(v);
  const oldKeys = new Set((old ?? []).map(key));
  const nowKeys = new Set((now ?? []).map(key));
  const dropped = old === undefined ? [] : old.filter((v) => !nowKeys.has(key(v)));
  const gained = now === undefined ? [] : now.filter((v) => !oldKeys.has(key(v)));
  if (now !== undefined && (old === undefined || dropped.length > 0)) {
    const what = old === undefined ? `is now limited to ${list(now)}` : `no longer allows ${list(dropped)}`;
    add("enum-narrowed", path, `'${path}' ${what}.`, { before: old, after: now });
  } else if (now === undefined || gained.length > 0) {
    const what = now === undefined ? "is no longer limited to a list of values" : `now also allows ${list(gained)}`;
    add("enum-widened", path, `'${path}' ${what}.`, { before: old, after: now });
  }
}

function compareLengths(before: NormalizedField, after: NormalizedField, path: string, add: Add): void {
  const maxOld = before.maxLength ?? Infinity;
  const maxNow = after.maxLength ?? Infinity;
  const minOld = before.minLength ?? 0;
  const minNow = after.minLength ?? 0;
  if (maxNow < maxOld || minNow > minOld) {
    add("length-narrowed", path, `The allowed length of '${path}' narrowed from ${range(minOld, maxOld)} to ${range(minNow, maxNow)}.`, { before: range(minOld, maxOld), after: range(minNow, maxNow) });
  } else if (maxNow > maxOld || minNow < minOld) {
    add("length-widened", path, `The allowed length of '${path}' widened from ${range(minOld, maxOld)} to ${range(minNow, maxNow)}.`, { before: range(minOld, maxOld), after: range(minNow, maxNow) });
  }
}

function comparePrecision(before: NormalizedField, after: NormalizedField, path: string, add: Add): void {
  if (before.precision === after.precision && before.scale === after.scale) return;
  const p1 = before.precision ?? Infinity;
  const p2 = after.precision ?? Infinity;
  const s1 = before.scale ?? 0;
  const s2 = after.scale ?? 0;
  const shown = (p?: number, s?: number) => `(${p ?? "any"}, ${s ?? 0})`;
  const values = { before: shown(before.precision, before.scale), after: shown(after.precision, after.scale) };
  if (s2 >= s1 && p2 - s2 >= p1 - s1) add("precision-widened", path, `The precision of '${path}' widened from ${values.before} to ${values.after}.`, values);
  else add("precision-narrowed", path, `The precision or scale of '${path}' narrowed from ${values.before} to ${values.after}.`, values);
}

/** Quality rules and tests, keyed by what they check, so a reordered list is no change. */
function compareRules(before: Map<string, unknown>, after: Map<string, unknown>, path: string, where: string, add: Add): void {
  for (const [name, rule] of before) {
    if (!after.has(name)) add("quality-rule-removed", path, `Quality rule ${name} of ${where} was removed: consumers lose that guarantee.`, { before: rule });
    else if (!isDeepStrictEqual(rule, after.get(name))) add("quality-rule-changed", path, `Quality rule ${name} of ${where} changed.`, { before: rule, after: after.get(name) });
  }
  for (const [name, rule] of after) if (!before.has(name)) add("quality-rule-added", path, `Quality rule ${name} was added to ${where}.`, { after: rule });
}

function rulesOf(element: { tests?: string[]; quality?: QualityRule[] }): Map<string, unknown> {
  const rules = new Map<string, unknown>();
  for (const test of element.tests ?? []) rules.set(`'${test}'`, test);
  (element.quality ?? []).forEach((rule, i) => {
    const name = rule.name ?? rule.metric ?? rule.query ?? rule.description ?? `#${i + 1}`;
    let key = `'${name}'`;
    for (let n = 2; rules.has(key); n++) key = `'${name}' (${n})`;
    rules.set(key, rule);
  });
  return rules;
}

function allowedValues(field: NormalizedField): unknown[] | undefined {
  return field.enum ?? field.symbols;
}

function describeType(field: NormalizedField): string {
  if (field.ref !== undefined) return `${field.type} (${field.ref})`;
  return field.physicalType && field.physicalType !== field.type ? `${field.type} (${field.physicalType})` : field.type;
}

function list(values: unknown[]): string {
  const shown = values.slice(0, 5).map((v) => JSON.stringify(v));
  return values.length > 5 ? `${shown.join(", ")} and ${values.length - 5} more` : shown.join(", ");
}

function range(min: number, max: number): string {
  return `${min}..${max === Infinity ? "unbounded" : max}`;
}

/** What identifies a model or field apart from its name, to recognise a rename. */
function modelShape(model: NormalizedModel): string {
  return JSON.stringify([model.kind, model.fields.map((f) => [f.name, fieldShape(f)])]);
}

function fieldShape(field: NormalizedField): string {
  return JSON.stringify([field.type, field.physicalType, field.required, field.fields?.map((f) => [f.name, fieldShape(f)]) ?? null, field.items ? fieldShape(field.items) : null]);
}

function match<T>(before: readonly T[], after: readonly T[], name: (x: T) => string) {
  const now = new Map(after.map((x) => [name(x), x]));
  const old = new Set(before.map(name));
  const matched: Array<[T, T]> = [];
  const removed: T[] = [];
  for (const x of before) {
    const counterpart = now.get(name(x));
    if (counterpart) matched.push([x, counterpart]);
    else removed.push(x);
  }
  const added = after.filter((x) => !old.has(name(x)));
  return { matched, removed, added };
}

/**
 * Pairs removed and added elements that have exactly the same shape, where that shape is unique
 * on both sides: the only trustworthy sign of a rename. Paired elements leave both lists.
 */
function pairRenames<T>(removed: T[], added: T[], shape: (x: T) => string): Array<[T, T]> {
  if (removed.length === 0 || added.length === 0) return [];
  const group = (xs: T[]) => {
    const byShape = new Map<string, T[]>();
    for (const x of xs) {
      const s = shape(x);
      const same = byShape.get(s);
      if (same) same.push(x);
      else byShape.set(s, [x]);
    }
    return byShape;
  };
  const removedByShape = group(removed);
  const addedByShape = group(added);
  const pairs: Array<[T, T]> = [];
  for (const [s, olds] of removedByShape) {
    const news = addedByShape.get(s);
    if (olds.length === 1 && news?.length === 1) pairs.push([olds[0], news[0]]);
  }
  const paired = new Set(pairs.flat());
  removed.splice(0, removed.length, ...removed.filter((x) => !paired.has(x)));
  added.splice(0, added.length, ...added.filter((x) => !paired.has(x)));
  return pairs;
}
