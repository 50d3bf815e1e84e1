/**
 * Builds the contract view (./shapes.ts) from a valid contract of any format and its normalized
 * models: every promise on one page (docs/formats.md). Linear in the models, which are already
 * held to MAX_MODEL_FIELDS.
 */
import { contractFormatOf, type ContractDocument, type ModelGroup } from "../contract-formats/index.js";
import { str } from "../contract-formats/members.js";
import { contractPromises } from "../contract-formats/promises.js";
import type { NormalizedField, NormalizedModel, QualityRule } from "../schema-formats/types.js";
import type { ContractView, ViewField, ViewModel, ViewRule } from "./shapes.js";
import { ruleInWords, testInWords } from "./words.js";

function qualityRule(rule: QualityRule): ViewRule {
  const out: ViewRule = { source: "quality", text: ruleInWords(rule), type: rule.type };
  for (const key of ["name", "dimension", "severity", "description", "query", "engine"] as const) if (rule[key] !== undefined) out[key] = rule[key];
  return out;
}

function rulesOf(element: { tests?: string[]; quality?: QualityRule[] }): ViewRule[] {
  return [...(element.quality ?? []).map(qualityRule), ...(element.tests ?? []).map((t): ViewRule => ({ source: "dbt", name: t, text: testInWords(t) }))];
}

function constraintsOf(f: NormalizedField): string[] {
  const out: string[] = [];
  if (f.minLength !== undefined && f.maxLength !== undefined) out.push(`length ${f.minLength} to ${f.maxLength}`);
  else if (f.maxLength !== undefined) out.push(`at most ${f.maxLength} characters`);
  else if (f.minLength !== undefined) out.push(`at least ${f.minLength} characters`);
  if (f.pattern !== undefined) out.push(`matches ${f.pattern}`);
  if (f.precision !== undefined) out.push(`precision ${f.precision}${f.scale !== undefined ? `, scale ${f.scale}` : ""}`);
  return out;
}

function flatten(fields: readonly NormalizedField[], prefix: string, depth: number, out: ViewField[]): ViewField[] {
  for (const f of fields) {
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    const row: ViewField = {
      path,
      name: f.name,
      depth,
      logicalType: f.type,
      physicalType: f.physicalType,
      required: f.required,
      primaryKey: f.primaryKey === true,
      unique: f.unique === true,
      constraints: constraintsOf(f),
      rules: rulesOf(f),
    };
    if (f.items) row.itemsType = f.items.ref ?? f.items.type;
    if (f.classification !== undefined) row.classification = f.classification;
    const values = f.enum ?? f.symbols;
    if (values !== undefined) row.values = values;
    if (f.description !== undefined) row.description = f.description;
    if (f.ref !== undefined) row.ref = f.ref;
    out.push(row);
    if (f.fields) flatten(f.fields, path, depth + 1, out);
    if (f.items) {
      if (f.items.fields) flatten(f.items.fields, `${path}[]`, depth + 1, out);
      if (f.items.quality || f.items.tests) out[out.length - 1].rules.push(...rulesOf(f.items));
    }
  }
  return out;
}

function model(m: NormalizedModel): ViewModel {
  const out: ViewModel = { name: m.name, kind: m.kind, rules: rulesOf(m), fields: flatten(m.fields, "", 0, []) };
  if (m.description !== undefined) out.description = m.description;
  return out;
}

const FORMAT_VERSION: Record<string, string> = { odcs: "apiVersion", dcs: "dataContractSpecification", "dcs-0.9": "dataContractSpecification" };

/** The view of a valid contract whose models (`groups`) are built and within the field limit. */
export function contractView(doc: ContractDocument & { id: string }, groups: readonly ModelGroup[]): ContractView {
  const format = contractFormatOf(doc);
  const facts = format.facts(doc);
  const promises = contractPromises(doc);
  const view: ContractView = {
    id: doc.id,
    title: facts.title,
    format: format.name,
    formatLabel: format.label,
    tags: Array.isArray(doc.tags) ? doc.tags.filter((t): t is string => typeof t === "string") : [],
    ...promises,
    schemas: groups.map((g) => ({ type: g.type, detectedType: g.detectedType, models: g.models.map(model) })),
    definitions: flatten(
      groups.flatMap((g) => g.definitions ?? []),
      "",
      0,
      [],
    ),
  };
  const formatVersion = str(doc[FORMAT_VERSION[format.name]]);
  if (formatVersion !== undefined) view.formatVersion = formatVersion;
  for (const key of ["version", "status", "owner", "domain", "description"] as const) if (facts[key] !== undefined) view[key] = facts[key];
  if (str(doc.dataProduct) !== undefined) view.dataProduct = str(doc.dataProduct);
  return view;
}
