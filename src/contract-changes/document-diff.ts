/**
 * The differences between two versions of a contract outside its models (docs/versions.md):
 * servers, service levels, roles, support, price, terms and context are matched by what names
 * them and judged by the rules table (./rules.ts); every other member is compared as it is, and a
 * difference there is listed, not breaking. Linear in the size of both documents.
 */
import { isDeepStrictEqual } from "node:util";
import { contractFormatOf, type ContractDocument } from "../contract-formats/index.js";
import { contractPromises, type RolePromise, type ServerPromise, type SlaPromise, type SupportPromise } from "../contract-formats/promises.js";
import { isRecord } from "../schema-formats/text.js";
import { CHANGE_RULES, type ChangeKind, type ContractChange } from "./rules.js";
import { compareServiceLevel } from "./service-levels.js";

type Add = (change: ChangeKind, path: string, message: string, values?: { before?: unknown; after?: unknown }) => void;

/** Top-level members read as promises or models, per format; the rest is compared member by member. */
const READ_AS_PROMISES: Record<string, readonly string[]> = {
  odcs: ["version", "schema", "servers", "slaProperties", "slaDefaultElement", "roles", "support", "price", "description", "context"],
  dcs: ["models", "definitions", "servers", "servicelevels", "terms"],
  "dcs-0.9": ["schema", "servers", "servicelevels", "terms"],
};

export function diffDocument(before: ContractDocument, after: ContractDocument): ContractChange[] {
  const changes: ContractChange[] = [];
  const add: Add = (change, path, message, values = {}) => changes.push({ path, change, breaking: CHANGE_RULES[change].breaking, ...values, message });
  const a = contractPromises(before);
  const b = contractPromises(after);

  compareServers(a.servers, b.servers, before, after, add);
  compareSla(a.sla, b.sla, add);
  compareRoles(a.roles, b.roles, "", add);
  compareSupport(a.support, b.support, add);
  comparePrice(a.price, b.price, add);
  for (const [path, [old, now]] of keyed(a.terms, b.terms, (t) => t.path)) {
    if (old?.text === now?.text) continue;
    const what = old === undefined ? "was added" : now === undefined ? "was removed" : "changed";
    add("terms-changed", path, `The ${(now ?? old)!.name} of the contract ${what}.`, { before: old?.text, after: now?.text });
  }
  if (!isDeepStrictEqual(before.context, after.context)) add("context-changed", "context", "The context for readers and agents changed.", { before: before.context, after: after.context });

  const skipped = new Set(["id", ...READ_AS_PROMISES[contractFormatOf(before).name], ...READ_AS_PROMISES[contractFormatOf(after).name]]);
  const rest = (doc: ContractDocument) => Object.fromEntries(Object.entries(doc).filter(([key]) => !skipped.has(key)));
  // The Data Contract Specification's contact is read as its support channel. The version string
  // names the versions compared (it is in the list of versions); it is not a change of its own.
  const withoutContact = (doc: Record<string, unknown>) =>
    isRecord(doc.info) ? { ...doc, info: Object.fromEntries(Object.entries(doc.info).filter(([k]) => k !== "contact" && k !== "version")) } : doc;
  walk(withoutContact(rest(before)), withoutContact(rest(after)), "", add);
  return changes;
}

/** Entries of two lists matched by key, in the order of the newer list, then the removed ones. */
function keyed<T>(before: readonly T[], after: readonly T[], key: (x: T) => string): Map<string, [T | undefined, T | undefined]> {
  const out = new Map<string, [T | undefined, T | undefined]>();
  const old = new Map(before.map((x) => [key(x), x]));
  for (const x of after) out.set(key(x), [old.get(key(x)), x]);
  for (const x of before) if (!out.has(key(x))) out.set(key(x), [x, undefined]);
  return out;
}

function rawServer(doc: ContractDocument, name: string): Record<string, unknown> | undefined {
  if (Array.isArray(doc.servers)) return doc.servers.find((s) => isRecord(s) && s.server === name) as Record<string, unknown> | undefined;
  return isRecord(doc.servers) && isRecord(doc.servers[name]) ? doc.servers[name] : undefined;
}

function compareServers(before: ServerPromise[], after: ServerPromise[], docBefore: ContractDocument, docAfter: ContractDocument, add: Add): void {
  for (const [name, [old, now]] of keyed(before, after, (s) => s.name)) {
    if (old === undefined) add("server-added", now!.path, `Server '${name}' was added.`, { after: name });
    else if (now === undefined) add("server-removed", old.path, `Server '${name}' was removed: consumers reading from it lose their source.`, { before: name });
    else {
      const connection = (s: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(s ?? {}).filter(([k]) => k !== "description" && k !== "roles"));
      const [x, y] = [connection(rawServer(docBefore, name)), connection(rawServer(docAfter, name))];
      if (!isDeepStrictEqual(x, y)) {
        const members = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => !isDeepStrictEqual(x[k], y[k]));
        add("server-changed", now.path, `Server '${name}' changed its ${members.join(", ")}: consumers connecting to it may fail.`, { before: pick(x, members), after: pick(y, members) });
      }
      if ((old.description ?? "") !== (now.description ?? "")) add("terms-changed", `${now.path}.description`, `The description of server '${name}' changed.`, { before: old.description, after: now.description });
      compareRoles(old.roles, now.roles, ` of server '${name}'`, add);
    }
  }
}

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

const slaShown = (p: SlaPromise) => `${String(p.value)}${p.unit ? ` ${p.unit}` : ""}`;
const slaName = (p: SlaPromise) => `${p.property}${p.element ? ` of ${p.element}` : ""}`;

function compareSla(before: SlaPromise[], after: SlaPromise[], add: Add): void {
  for (const [, [old, now]] of keyed(before, after, (p) => `${p.property.toLowerCase()}|${p.element ?? ""}`)) {
    if (old === undefined) add("sla-added", now!.path, `The service level ${slaName(now!)} (${slaShown(now!)}) was added.`, { after: slaShown(now!) });
    else if (now === undefined) add("sla-removed", old.path, `The service level ${slaName(old)} (${slaShown(old)}) was removed: consumers lose that promise.`, { before: slaShown(old) });
    else {
      if (old.value !== now.value || (old.unit ?? "") !== (now.unit ?? "")) {
        const verdict = compareServiceLevel(old, now);
        const values = { before: slaShown(old), after: slaShown(now) };
        if (verdict === "weaker") add("sla-weakened", now.path, `The service level ${slaName(now)} is weaker: ${values.after} instead of ${values.before}.`, values);
        else if (verdict === "stronger") add("sla-strengthened", now.path, `The service level ${slaName(now)} is stronger: ${values.after} instead of ${values.before}.`, values);
        else if (verdict === "incomparable") add("sla-changed", now.path, `The service level ${slaName(now)} changed from ${values.before} to ${values.after}, which cannot be ordered: consumers may rely on the old value.`, values);
      }
      if ((old.description ?? "") !== (now.description ?? "")) add("terms-changed", now.path, `The description of the service level ${slaName(now)} changed.`, { before: old.description, after: now.description });
    }
  }
}

function compareRoles(before: RolePromise[], after: RolePromise[], where: string, add: Add): void {
  for (const [name, [old, now]] of keyed(before, after, (r) => r.role)) {
    if (old === undefined) add("role-added", now!.path, `Role '${name}'${where} was added.`, { after: name });
    else if (now === undefined) add("role-removed", old.path, `Role '${name}'${where} was removed: consumers granted it lose their access.`, { before: name });
    else if ((old.access ?? "") !== (now.access ?? "")) add("role-access-changed", now.path, `The access of role '${name}'${where} changed from ${old.access ?? "none"} to ${now.access ?? "none"}.`, { before: old.access, after: now.access });
    else {
      const members = (["description", "firstLevelApprovers", "secondLevelApprovers"] as const).filter((k) => (old[k] ?? "") !== (now[k] ?? ""));
      if (members.length > 0) add("role-changed", now.path, `Role '${name}'${where} changed its ${members.join(", ")}.`, { before: pick({ ...old }, [...members]), after: pick({ ...now }, [...members]) });
    }
  }
}

function compareSupport(before: SupportPromise[], after: SupportPromise[], add: Add): void {
  for (const [name, [old, now]] of keyed(before, after, (s) => s.channel)) {
    if (old === undefined) add("support-added", now!.path, `Support channel '${name}' was added.`, { after: name });
    else if (now === undefined) add("support-removed", old.path, `Support channel '${name}' was removed.`, { before: name });
    else {
      const members = (["url", "tool", "scope", "description"] as const).filter((k) => (old[k] ?? "") !== (now[k] ?? ""));
      if (members.length > 0) add("support-changed", now.path, `Support channel '${name}' changed its ${members.join(", ")}.`, { before: pick({ ...old }, [...members]), after: pick({ ...now }, [...members]) });
    }
  }
}

function comparePrice(before: { amount?: number; currency?: string; unit?: string; path: string } | undefined, after: typeof before, add: Add): void {
  const amount = (p: typeof before) => p?.amount ?? (p === undefined ? 0 : undefined);
  const shown = (p: typeof before) => (p?.amount !== undefined ? `${p.amount}${p.currency ? ` ${p.currency}` : ""}${p.unit ? ` per ${p.unit}` : ""}` : "free");
  const [x, y] = [amount(before), amount(after)];
  if (x === y && before?.currency === after?.currency && before?.unit === after?.unit) return;
  const path = after?.path ?? before!.path;
  const values = { before: shown(before), after: shown(after) };
  if (x === undefined || y === undefined) return; // a price in words only: compared with the terms
  if (y === 0) add("price-lowered", path, `The contract no longer names a price (was ${values.before}).`, values);
  else if (x !== 0 && (before?.currency !== after?.currency || before?.unit !== after?.unit)) add("price-changed", path, `The price is now ${values.after} instead of ${values.before}.`, values);
  else if (y > x) add(x === 0 ? "price-changed" : "price-raised", path, `The price is now ${values.after} instead of ${values.before}.`, values);
  else if (y < x) add("price-lowered", path, `The price is now ${values.after} instead of ${values.before}.`, values);
}

/**
 * Every other member, compared as written: objects member by member, lists item by item when their
 * length is kept. Each value is visited once (no deep comparison at every level), so the walk stays
 * linear however deeply the members nest.
 */
function walk(before: unknown, after: unknown, path: string, add: Add): void {
  const at = (key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`);
  if (isRecord(before) && isRecord(after)) {
    for (const key of Object.keys(before)) {
      if (!Object.hasOwn(after, key)) add("member-removed", at(key), `'${at(key)}' was removed.`, { before: before[key] });
      else walk(before[key], after[key], at(key), add);
    }
    for (const key of Object.keys(after)) if (!Object.hasOwn(before, key)) add("member-added", at(key), `'${at(key)}' was added.`, { after: after[key] });
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, i) => walk(item, after[i], at(i), add));
    return;
  }
  const composite = (v: unknown) => typeof v === "object" && v !== null;
  if (!composite(before) && !composite(after) && Object.is(before, after)) return;
  // Another value, a list of another length, or a value of another kind: one change, shown whole.
  add("member-changed", path, `'${path}' changed.`, { before, after });
}
