/**
 * What a contract promises outside its models, read alike from every format (docs/formats.md):
 * servers, service levels, roles, support channels, price, terms and the v3.2 `context`. The
 * contract page shows these, and the comparison of two versions (docs/versions.md) judges them.
 * Each entry keeps the path of the member it was read from, so a difference can name it.
 */
import { isRecord } from "../schema-formats/text.js";
import { str } from "./members.js";
import { contractFormatOf } from "./index.js";
import type { ContractDocument } from "./types.js";

export type Scalar = string | number | boolean | null;

export interface ServerPromise {
  /** The server's name (ODCS `server`, the key of a Data Contract Specification `servers` map). */
  name: string;
  path: string;
  type?: string;
  environment?: string;
  description?: string;
  /** Its other plain members (host, database, project, location…), as written. */
  details: Record<string, Scalar>;
  roles: RolePromise[];
}

export interface SlaPromise {
  /** ODCS property name (`latency`, `retention`…), or the Data Contract Specification's service level. */
  property: string;
  path: string;
  value: Scalar;
  unit?: string;
  /** What it applies to (ODCS `element`), when only part of the contract. */
  element?: string;
  description?: string;
}

export interface RolePromise {
  role: string;
  path: string;
  access?: string;
  description?: string;
  firstLevelApprovers?: string;
  secondLevelApprovers?: string;
}

export interface SupportPromise {
  channel: string;
  path: string;
  url?: string;
  tool?: string;
  scope?: string;
  description?: string;
}

export interface PricePromise {
  path: string;
  amount?: number;
  currency?: string;
  unit?: string;
  /** A price in words (the Data Contract Specification's `terms.billing`). */
  text?: string;
}

export interface TermPromise {
  /** `purpose`, `usage`, `limitations`, `billing`, `noticePeriod`, a policy's type… */
  name: string;
  path: string;
  text: string;
}

export interface ContextPromise {
  path: string;
  instructions?: string;
  verifiedStatements: Array<{ question: string; answer?: string }>;
  constraints: string[];
}

export interface ContractPromises {
  servers: ServerPromise[];
  sla: SlaPromise[];
  roles: RolePromise[];
  support: SupportPromise[];
  price?: PricePromise;
  terms: TermPromise[];
  context?: ContextPromise;
}

const records = (value: unknown): Array<[number, Record<string, unknown>]> =>
  Array.isArray(value) ? value.flatMap((v, i): Array<[number, Record<string, unknown>]> => (isRecord(v) ? [[i, v]] : [])) : [];

const scalar = (value: unknown): value is Scalar => value === null || ["string", "number", "boolean"].includes(typeof value);

function role(r: Record<string, unknown>, path: string): RolePromise | undefined {
  const name = str(r.role);
  if (name === undefined) return undefined;
  const out: RolePromise = { role: name, path };
  for (const key of ["access", "description", "firstLevelApprovers", "secondLevelApprovers"] as const) if (str(r[key]) !== undefined) out[key] = str(r[key]);
  return out;
}

function server(name: string, s: Record<string, unknown>, path: string): ServerPromise {
  const details: Record<string, Scalar> = {};
  for (const [key, value] of Object.entries(s)) {
    if (["server", "type", "environment", "description", "roles", "id"].includes(key) || !scalar(value)) continue;
    details[key] = value;
  }
  const roles = records(s.roles).flatMap(([i, r]) => role(r, `${path}.roles[${i}]`) ?? []);
  const out: ServerPromise = { name, path, details, roles };
  for (const key of ["type", "environment", "description"] as const) if (str(s[key]) !== undefined) out[key] = str(s[key]);
  return out;
}

function odcsPromises(doc: ContractDocument): ContractPromises {
  const servers = records(doc.servers).map(([i, s]) => server(str(s.server) ?? `#${i + 1}`, s, `servers[${i}]`));
  const sla = records(doc.slaProperties).flatMap(([i, p]): SlaPromise[] => {
    const property = str(p.property);
    if (property === undefined) return [];
    const value = scalar(p.value) ? p.value : scalar(p.valueExt) ? p.valueExt : null;
    const out: SlaPromise = { property, path: `slaProperties[${i}]`, value };
    for (const key of ["unit", "element", "description"] as const) if (str(p[key]) !== undefined) out[key] = str(p[key]);
    if (out.element === undefined && str(doc.slaDefaultElement) !== undefined) out.element = str(doc.slaDefaultElement);
    return [out];
  });
  const roles = records(doc.roles).flatMap(([i, r]) => role(r, `roles[${i}]`) ?? []);
  const support = records(doc.support).flatMap(([i, s]): SupportPromise[] => {
    const channel = str(s.channel);
    if (channel === undefined) return [];
    const out: SupportPromise = { channel, path: `support[${i}]` };
    for (const key of ["url", "tool", "scope", "description"] as const) if (str(s[key]) !== undefined) out[key] = str(s[key]);
    return [out];
  });
  let price: PricePromise | undefined;
  if (isRecord(doc.price)) {
    price = { path: "price" };
    if (typeof doc.price.priceAmount === "number") price.amount = doc.price.priceAmount;
    if (str(doc.price.priceCurrency) !== undefined) price.currency = str(doc.price.priceCurrency);
    if (str(doc.price.priceUnit) !== undefined) price.unit = str(doc.price.priceUnit);
  }
  const terms: TermPromise[] = [];
  if (typeof doc.description === "string" && doc.description !== "") terms.push({ name: "description", path: "description", text: doc.description });
  else if (isRecord(doc.description)) {
    for (const key of ["purpose", "usage", "limitations"]) {
      const text = str(doc.description[key]);
      if (text !== undefined) terms.push({ name: key, path: `description.${key}`, text });
    }
  }
  let context: ContextPromise | undefined;
  if (typeof doc.context === "string") context = { path: "context", instructions: doc.context, verifiedStatements: [], constraints: [] };
  else if (isRecord(doc.context)) {
    context = {
      path: "context",
      verifiedStatements: records(doc.context.verifiedStatements).flatMap(([, v]) => (str(v.question) !== undefined ? [{ question: String(v.question), ...(str(v.answer) !== undefined ? { answer: String(v.answer) } : {}) }] : [])),
      constraints: records(doc.context.constraints).flatMap(([, c]) => str(c.constraint) ?? []),
    };
    if (str(doc.context.instructions) !== undefined) context.instructions = str(doc.context.instructions);
  }
  return { servers, sla, roles, support, ...(price ? { price } : {}), terms, ...(context ? { context } : {}) };
}

/** The Data Contract Specification's service levels, each value that can be compared as an SLA property. */
const DCS_SERVICE_LEVELS: Array<[level: string, member: string, property: string]> = [
  ["availability", "percentage", "availability"],
  ["retention", "period", "retention"],
  ["retention", "unlimited", "retentionUnlimited"],
  ["latency", "threshold", "latency"],
  ["freshness", "threshold", "freshness"],
  ["frequency", "interval", "frequency"],
  ["frequency", "cron", "frequencyCron"],
  ["frequency", "type", "frequencyType"],
  ["support", "time", "supportTime"],
  ["support", "responseTime", "supportResponseTime"],
  ["backup", "interval", "backupInterval"],
  ["backup", "cron", "backupCron"],
  ["backup", "recoveryTime", "recoveryTime"],
  ["backup", "recoveryPoint", "recoveryPoint"],
];

function dcsPromises(doc: ContractDocument): ContractPromises {
  const servers = isRecord(doc.servers) ? Object.entries(doc.servers).flatMap(([name, s]) => (isRecord(s) ? [server(name, s, `servers.${name}`)] : [])) : [];
  const sla: SlaPromise[] = [];
  const levels = isRecord(doc.servicelevels) ? doc.servicelevels : {};
  for (const [level, member, property] of DCS_SERVICE_LEVELS) {
    const block = levels[level];
    if (!isRecord(block) || !scalar(block[member]) || block[member] === undefined) continue;
    const promise: SlaPromise = { property, path: `servicelevels.${level}.${member}`, value: block[member] as Scalar };
    if (str(block.description) !== undefined) promise.description = str(block.description);
    sla.push(promise);
  }
  const info = isRecord(doc.info) ? doc.info : {};
  const support: SupportPromise[] = [];
  if (isRecord(info.contact)) {
    const c = info.contact;
    const channel = str(c.name) ?? str(c.email) ?? str(c.url);
    if (channel !== undefined) {
      const out: SupportPromise = { channel, path: "info.contact" };
      const url = str(c.url) ?? (str(c.email) !== undefined ? `mailto:${c.email}` : undefined);
      if (url !== undefined) out.url = url;
      if (str(c.email) !== undefined) out.tool = "email";
      support.push(out);
    }
  }
  const termsDoc = isRecord(doc.terms) ? doc.terms : {};
  const terms: TermPromise[] = [];
  for (const key of ["usage", "limitations", "billing", "noticePeriod"]) {
    const text = str(termsDoc[key]);
    if (text !== undefined) terms.push({ name: key, path: `terms.${key}`, text });
  }
  for (const [i, p] of records(termsDoc.policies)) {
    const text = str(p.description) ?? str(p.url);
    if (text !== undefined) terms.push({ name: str(p.type) ?? str(p.name) ?? "policy", path: `terms.policies[${i}]`, text });
  }
  const billing = str(termsDoc.billing);
  return { servers, sla, roles: [], support, ...(billing !== undefined ? { price: { path: "terms.billing", text: billing } } : {}), terms };
}

/** The promises of a valid contract of any format. */
export function contractPromises(doc: ContractDocument): ContractPromises {
  return contractFormatOf(doc).name === "odcs" ? odcsPromises(doc) : dcsPromises(doc);
}
