/**
 * Reads the documents a plan is made from — the access, its output port and the data contract —
 * into the plan's inputs. Shared by the server and the connectors, so both plan from the same
 * reading. Every value read here is a document author's text: it only ever narrows a grant.
 */
import { contractModels } from "../contract-formats/models.js";
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from "../schema-formats/limits.js";
import type { ContractDocument } from "../contract-formats/types.js";
import type { ContractRole, PlanInput, PlanTable } from "./plan.js";

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** A custom property, as ODCS/ODPS list them (`[{property, value}]`) or as a plain object. */
export function customProperty(holder: unknown, property: string): string | undefined {
  if (!isRecord(holder)) return undefined;
  const custom = holder.customProperties;
  if (Array.isArray(custom)) return text(custom.find((p): p is Json => isRecord(p) && p.property === property)?.value);
  return isRecord(custom) ? text(custom[property]) : undefined;
}

/** The port's members a plan reads: its server (`host` names a connector's configured server), and its ceilings. */
export function portInput(port: Json): PlanInput["port"] {
  const server = isRecord(port.server) ? port.server : undefined;
  const out: PlanInput["port"] = {};
  const set = (key: keyof PlanInput["port"], value: string | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set("server", text(server?.host));
  set("schema", text(server?.schema));
  set("table", text(server?.table));
  set("maxClassification", customProperty(port, "maxClassification"));
  set("maskClassification", customProperty(port, "maskClassification"));
  return out;
}

/** The contract's roles (ODCS `roles`) with their ceilings, and its models' top-level columns as tables. */
export function contractInput(id: string, doc: ContractDocument, limits: ParseLimits = DEFAULT_PARSE_LIMITS): NonNullable<PlanInput["contract"]> {
  const roles: ContractRole[] = (Array.isArray(doc.roles) ? doc.roles : []).filter(isRecord).flatMap((r) => {
    const role = text(r.role);
    if (role === undefined) return [];
    const out: ContractRole = { role };
    if (text(r.access) !== undefined) out.access = text(r.access);
    const max = customProperty(r, "maxClassification");
    const mask = customProperty(r, "maskClassification");
    if (max !== undefined) out.maxClassification = max;
    if (mask !== undefined) out.maskClassification = mask;
    return [out];
  });
  const physical = physicalNames(doc);
  const tables: PlanTable[] = contractModels(doc, limits).flatMap((group) =>
    group.models.map((model) => {
      const names = physical.get(model.name);
      const column = (name: string) => names?.columns.get(name) ?? name;
      return {
        name: names?.table ?? model.name,
        columns: model.fields.map((f) => (f.classification === undefined ? { name: column(f.name) } : { name: column(f.name), classification: f.classification })),
      };
    }),
  );
  const version = text(doc.version) ?? (isRecord(doc.info) ? text(doc.info.version) : undefined);
  return version === undefined ? { id, roles, tables } : { id, version, roles, tables };
}

/**
 * ODCS `physicalName` of each schema object and of its top-level properties, by their `name`: the
 * table and column names as the database knows them, which a grant must use (the name otherwise).
 */
function physicalNames(doc: ContractDocument): Map<string, { table?: string; columns: Map<string, string> }> {
  const out = new Map<string, { table?: string; columns: Map<string, string> }>();
  if (!Array.isArray(doc.schema)) return out;
  for (const object of doc.schema.filter(isRecord)) {
    const name = text(object.name);
    if (name === undefined || out.has(name)) continue;
    const columns = new Map<string, string>();
    for (const property of Array.isArray(object.properties) ? object.properties.filter(isRecord) : []) {
      const [column, physicalName] = [text(property.name), text(property.physicalName)];
      if (column !== undefined && physicalName !== undefined && !columns.has(column)) columns.set(column, physicalName);
    }
    const table = text(object.physicalName);
    out.set(name, table === undefined ? { columns } : { table, columns });
  }
  return out;
}

/** The roles an access names (`roles`), as text. */
export function accessRoles(access: Json): string[] {
  return Array.isArray(access.roles) ? access.roles.filter((r): r is string => typeof r === "string") : [];
}
