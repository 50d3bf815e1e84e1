/**
 * The privileges plan of an access (docs/consumers.md, "The privileges plan"): what the access
 * allows on each object of its output port, column by column, and why. A pure function of its
 * inputs — no clock, no I/O, no ordering left to chance — so the same inputs give the same plan
 * byte for byte, on the server that shows it and in the connectors that grant it.
 */
import { DEFAULT_SCHEME, levelOf, type ClassificationScheme } from "./scheme.js";

export type ColumnDecision = "granted" | "masked" | "withheld";

/** How an object is granted: every table of a schema, a whole table, some of its columns, or not at all. */
export type ObjectScope = "schema" | "table" | "columns" | "none";

export interface ContractRole {
  role: string;
  access?: string;
  maxClassification?: string;
  maskClassification?: string;
}

export interface PlanTable {
  name: string;
  columns: ReadonlyArray<{ name: string; classification?: string }>;
}

export interface PlanInput {
  accessId: string;
  /** The contract roles the access names (ODCS `roles[].role`). */
  roles: readonly string[];
  port: {
    server?: string;
    schema?: string;
    table?: string;
    /** The port's custom properties of the same names. */
    maxClassification?: string;
    maskClassification?: string;
  };
  contract: { id: string; version?: string; roles: readonly ContractRole[]; tables: readonly PlanTable[] } | null;
  scheme?: ClassificationScheme;
}

export interface PlannedColumn {
  name: string;
  classification: string | null;
  decision: ColumnDecision;
  reason: string;
}

export interface PlannedObject {
  server: string;
  schema: string;
  table: string | null;
  scope: ObjectScope;
  columns: PlannedColumn[];
}

export interface PlannedRole {
  role: string;
  defined: boolean;
  maxClassification: string | null;
  maskClassification: string | null;
}

export interface PrivilegesPlan {
  accessId: string;
  dataContractId: string | null;
  dataContractVersion: string | null;
  scheme: { name: string; levels: string[] };
  /** The highest level read in clear and the highest read masked: a level name, `any` (no ceiling) or `none`. */
  ceiling: { clear: string; masked: string; reasons: string[] };
  roles: PlannedRole[];
  objects: PlannedObject[];
  notes: string[];
}

/** A level index; `ANY` = no ceiling, `NONE` = not even the lowest level. */
const ANY = Number.POSITIVE_INFINITY;
const NONE = -1;

interface Bounds {
  clear: number;
  masked: number;
}

interface ColumnFacts {
  classification: string | null;
  /** The column's level; an unclassified column counts as the lowest. `undefined`: not in the scheme. */
  level: number | undefined;
  ceiling: Bounds;
  scheme: ClassificationScheme;
}

interface ColumnRule {
  name: string;
  when: (c: ColumnFacts) => boolean;
  decision: ColumnDecision;
  reason: (c: ColumnFacts) => string;
}

const levelName = (scheme: ClassificationScheme, level: number): string => (level === ANY ? "any" : level === NONE ? "none" : scheme.levels[level]!);
const described = (c: ColumnFacts): string => (c.classification === null ? `Unclassified (read as '${c.scheme.levels[0]}')` : `Classified '${c.classification}'`);

/** The column rules, in order: the first that applies decides. */
export const COLUMN_RULES: readonly ColumnRule[] = [
  {
    name: "no-ceiling",
    when: (c) => c.ceiling.clear === ANY,
    decision: "granted",
    reason: () => "No classification ceiling applies to this access.",
  },
  {
    name: "unknown-classification",
    when: (c) => c.level === undefined,
    decision: "withheld",
    reason: (c) => `Classified '${c.classification}', which is not a level of the '${c.scheme.name}' scheme.`,
  },
  {
    name: "within-clear",
    when: (c) => c.level! <= c.ceiling.clear,
    decision: "granted",
    reason: (c) => `${described(c)}, within the ceiling '${levelName(c.scheme, c.ceiling.clear)}'.`,
  },
  {
    name: "within-masked",
    when: (c) => c.level! <= c.ceiling.masked,
    decision: "masked",
    reason: (c) => `${described(c)}, above the ceiling '${levelName(c.scheme, c.ceiling.clear)}' but within the masked ceiling '${levelName(c.scheme, c.ceiling.masked)}'.`,
  },
  {
    name: "above-ceiling",
    when: () => true,
    decision: "withheld",
    reason: (c) => `${described(c)}, above the ceiling '${levelName(c.scheme, c.ceiling.masked === NONE ? c.ceiling.clear : c.ceiling.masked)}'.`,
  },
];

/** The decision for one column under a ceiling. */
export function decideColumn(classification: string | undefined, ceiling: Bounds, scheme: ClassificationScheme = DEFAULT_SCHEME): { decision: ColumnDecision; reason: string; rule: string } {
  const facts: ColumnFacts = {
    classification: classification ?? null,
    level: classification === undefined ? 0 : levelOf(scheme, classification),
    ceiling,
    scheme,
  };
  const rule = COLUMN_RULES.find((r) => r.when(facts))!;
  return { decision: rule.decision, reason: rule.reason(facts), rule: rule.name };
}

/** A ceiling named by a custom property; a name outside the scheme lets nothing through (fail closed). */
function bounds(scheme: ClassificationScheme, max: string | undefined, mask: string | undefined): Bounds {
  if (max === undefined) return { clear: ANY, masked: ANY };
  const clear = levelOf(scheme, max) ?? NONE;
  const masked = mask === undefined ? clear : Math.max(clear, levelOf(scheme, mask) ?? NONE);
  return { clear, masked };
}

/** The code-point order, so the plan never depends on a locale. */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function ceilingOf(input: PlanInput, scheme: ClassificationScheme): { ceiling: Bounds; reasons: string[]; roles: PlannedRole[]; notes: string[] } {
  const reasons: string[] = [];
  const notes: string[] = [];
  const { maxClassification, maskClassification } = input.port;
  const port = bounds(scheme, maxClassification, maskClassification);
  if (maxClassification !== undefined) {
    const masked = maskClassification !== undefined ? `, masked up to '${maskClassification}'` : "";
    reasons.push(`The output port allows up to '${maxClassification}'${masked} (custom property maxClassification).`);
    if (levelOf(scheme, maxClassification) === undefined) notes.push(`The port's maxClassification '${maxClassification}' is not a level of the '${scheme.name}' scheme: no classified column is granted.`);
  }

  const named = [...new Set(input.roles)].sort(byCodePoint);
  const defined = new Map((input.contract?.roles ?? []).map((r) => [r.role, r] as const));
  const roles: PlannedRole[] = named.map((name) => {
    const role = defined.get(name);
    return { role: name, defined: role !== undefined, maxClassification: role?.maxClassification ?? null, maskClassification: role?.maskClassification ?? null };
  });
  let fromRoles: Bounds = { clear: ANY, masked: ANY };
  if (named.length > 0) {
    const known = roles.filter((r) => r.defined);
    if (known.length === 0) {
      fromRoles = { clear: NONE, masked: NONE };
      reasons.push("None of the roles the access names is defined by the data contract, so they allow nothing.");
    } else {
      // Several roles allow what any one of them allows.
      fromRoles = known
        .map((r) => bounds(scheme, r.maxClassification ?? undefined, r.maskClassification ?? undefined))
        .reduce((a, b) => ({ clear: Math.max(a.clear, b.clear), masked: Math.max(a.masked, b.masked) }));
      for (const r of known) {
        reasons.push(r.maxClassification === null ? `Role '${r.role}' sets no ceiling.` : `Role '${r.role}' allows up to '${r.maxClassification}'${r.maskClassification !== null ? `, masked up to '${r.maskClassification}'` : ""}.`);
      }
    }
    for (const r of roles) if (!r.defined) notes.push(`The role '${r.role}' is not defined by the data contract; it allows nothing.`);
  }
  // Both the port and the roles must allow a level.
  const ceiling = { clear: Math.min(port.clear, fromRoles.clear), masked: Math.min(port.masked, fromRoles.masked) };
  if (ceiling.clear === ANY) reasons.push("Neither the output port nor a role sets a classification ceiling.");
  return { ceiling, reasons, roles, notes };
}

function planTable(server: string, schema: string, table: PlanTable, ceiling: Bounds, scheme: ClassificationScheme): PlannedObject {
  const columns = table.columns.map((column): PlannedColumn => {
    const { decision, reason } = decideColumn(column.classification, ceiling, scheme);
    return { name: column.name, classification: column.classification ?? null, decision, reason };
  });
  const granted = columns.filter((c) => c.decision === "granted").length;
  const masked = columns.some((c) => c.decision === "masked");
  const scope: ObjectScope = granted === columns.length && columns.length > 0 ? "table" : granted > 0 || masked ? "columns" : "none";
  return { server, schema, table: table.name, scope, columns };
}

/** The plan: per object of the port, the columns granted, masked and withheld, each with its reason. */
export function planPrivileges(input: PlanInput): PrivilegesPlan {
  const scheme = input.scheme ?? DEFAULT_SCHEME;
  const { ceiling, reasons, roles, notes } = ceilingOf(input, scheme);
  const objects: PlannedObject[] = [];
  const { server, schema, table } = input.port;
  if (server === undefined || schema === undefined) {
    notes.push("The output port names no server and schema, so there is nothing to grant.");
  } else {
    const described = (input.contract?.tables ?? []).filter((t) => table === undefined || t.name === table);
    const sorted = [...described].sort((a, b) => byCodePoint(a.name, b.name));
    const planned = sorted.map((t) => planTable(server, schema, t, ceiling, scheme));
    const restricted = planned.some((o) => o.scope !== "table");
    if (ceiling.clear === NONE && planned.length === 0) {
      objects.push({ server, schema, table: table ?? null, scope: "none", columns: [] });
      notes.push("The data contract describes no columns of this object, and nothing is allowed: it is not granted.");
    } else if (planned.length === 0) {
      objects.push({ server, schema, table: table ?? null, scope: table === undefined ? "schema" : "table", columns: [] });
      notes.push("The data contract describes no columns of this object: it is granted whole.");
    } else if (table === undefined && !restricted) {
      // Nothing withheld: the whole schema, as without a plan.
      objects.push({ server, schema, table: null, scope: "schema", columns: [] });
    } else {
      objects.push(...planned);
      if (table === undefined) notes.push(`Tables of schema '${schema}' that the data contract does not describe are not granted.`);
    }
  }
  return {
    accessId: input.accessId,
    dataContractId: input.contract?.id ?? null,
    dataContractVersion: input.contract?.version ?? null,
    scheme: { name: scheme.name, levels: [...scheme.levels] },
    ceiling: { clear: levelName(scheme, ceiling.clear), masked: levelName(scheme, ceiling.masked), reasons },
    roles,
    objects,
    notes,
  };
}
