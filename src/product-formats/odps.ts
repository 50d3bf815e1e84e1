/**
 * Open Data Product Standard v1.0 (`apiVersion: v1.0.0`, `kind: DataProduct`), validated by
 * Steward's own reading of the standard. Output ports are keyed by `name` + `version`; what the
 * standard has no member for (`autoApprove`, `containsPii`, `status`, `server`) arrives as port
 * `customProperties`, the way the reference product's own example sends it.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import type { ValidateFunction } from "ajv";
import { customProperty, str } from "../contract-formats/members.js";
import { createAjv, standardViolations } from "../platform/validation.js";
import { isRecord } from "../schema-formats/text.js";
import type { OutputPortView, ProductFormat } from "./types.js";

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const closed = (properties: Record<string, TSchema>) => Type.Object(properties, { additionalProperties: false });
const Str = Type.String();
const Uri = Type.String({ format: "uri" });
const Tags = Type.Array(Str);
const CustomProperties = Type.Array(closed({ property: Str, value: Type.Unknown(), description: opt(Str) }));
const AuthoritativeDefinitions = Type.Array(closed({ type: Str, url: Uri, description: opt(Str) }));
const common = { tags: opt(Tags), customProperties: opt(CustomProperties), authoritativeDefinitions: opt(AuthoritativeDefinitions) };

export const OdpsSchema = closed({
  apiVersion: Type.Union([Type.Literal("v0.9.0"), Type.Literal("v1.0.0")]),
  kind: Type.Literal("DataProduct"),
  id: Str,
  name: opt(Str),
  version: opt(Str),
  status: Str,
  domain: opt(Str),
  tenant: opt(Str),
  authoritativeDefinitions: opt(AuthoritativeDefinitions),
  description: opt(
    closed({ purpose: opt(Str), limitations: opt(Str), usage: opt(Str), authoritativeDefinitions: opt(AuthoritativeDefinitions), customProperties: opt(CustomProperties) }),
  ),
  customProperties: opt(CustomProperties),
  tags: opt(Tags),
  inputPorts: opt(Type.Array(closed({ name: Str, version: Str, contractId: Str, ...common }))),
  outputPorts: opt(
    Type.Array(
      closed({
        name: Str,
        description: opt(Str),
        type: opt(Str),
        version: Str,
        contractId: opt(Str),
        sbom: opt(Type.Array(closed({ type: opt(Str), url: Uri }))),
        inputContracts: opt(Type.Array(closed({ id: Str, version: Str }))),
        ...common,
      }),
    ),
  ),
  managementPorts: opt(
    Type.Array(closed({ name: Str, content: Str, type: opt(Str), url: opt(Uri), channel: opt(Str), description: opt(Str), ...common })),
  ),
  support: opt(
    Type.Array(closed({ channel: Str, url: Uri, description: opt(Str), tool: opt(Str), scope: opt(Str), invitationUrl: opt(Uri), ...common })),
  ),
  team: opt(
    closed({
      name: opt(Str),
      description: opt(Str),
      members: opt(
        Type.Array(
          closed({
            username: Str, name: opt(Str), description: opt(Str), role: opt(Str), dateIn: opt(Type.String({ format: "date" })),
            dateOut: opt(Type.String({ format: "date" })), replacedByUsername: opt(Str), ...common,
          }),
        ),
      ),
      ...common,
    }),
  ),
  productCreatedTs: opt(Type.String({ format: "date-time" })),
});

let structure: ValidateFunction | undefined;

/** A custom property that is a yes/no flag: `true` or the text "true". */
function flag(port: Record<string, unknown>, name: string): boolean {
  const value = customProperty(port.customProperties, name)?.value;
  return value === true || (typeof value === "string" && value.toLowerCase() === "true");
}

/**
 * The standard has no archetype member, so it arrives as a custom property: `archetype`, or
 * `type` as the reference product's own example product sends it (`consumer-aligned`).
 */
function archetypeOf(doc: Record<string, unknown>): string | undefined {
  return str(customProperty(doc.customProperties, "archetype")?.value) ?? str(customProperty(doc.customProperties, "type")?.value);
}

/** The name an access uses for an ODPS output port. */
export const portRef = (name: unknown, version: unknown) => `${String(name)}@${String(version)}`;

export const odpsFormat: ProductFormat = {
  name: "odps",
  label: "Open Data Product Standard v1.0",
  detects: (doc) => doc.apiVersion !== undefined || doc.kind === "DataProduct",
  validate(doc) {
    structure ??= createAjv().compile(OdpsSchema);
    const violations = structure(doc) ? [] : standardViolations(structure.errors);
    const seen = new Map<string, number>();
    (Array.isArray(doc.outputPorts) ? doc.outputPorts : []).forEach((port, i) => {
      if (!isRecord(port) || typeof port.name !== "string" || typeof port.version !== "string") return;
      const ref = portRef(port.name, port.version);
      if (seen.has(ref)) violations.push({ field: `outputPorts[${i}].version`, message: `output port ${ref} is already outputPorts[${seen.get(ref)}]: name and version identify a port` });
      else seen.set(ref, i);
    });
    return violations;
  },
  facts(doc) {
    const team = isRecord(doc.team) ? doc.team : undefined;
    const custom = customProperty(doc.customProperties, "owner");
    const description = isRecord(doc.description) ? (str(doc.description.purpose) ?? str(doc.description.usage)) : undefined;
    const base = { title: str(doc.name) ?? String(doc.id), status: str(doc.status), description, domain: str(doc.domain), archetype: archetypeOf(doc) };
    if (str(team?.name) !== undefined) return { ...base, owner: str(team?.name), ownerField: "team.name" };
    if (custom && str(custom.value) !== undefined) return { ...base, owner: str(custom.value), ownerField: `customProperties[${custom.index}].value` };
    if (str(doc.domain) !== undefined) return { ...base, owner: str(doc.domain), ownerField: "domain" };
    return { ...base, ownerField: "team.name" };
  },
  outputPorts(doc) {
    if (!Array.isArray(doc.outputPorts)) return [];
    return doc.outputPorts.flatMap((port, i): OutputPortView[] => {
      if (!isRecord(port) || typeof port.name !== "string" || typeof port.version !== "string") return [];
      const server = customProperty(port.customProperties, "server")?.value;
      const status = customProperty(port.customProperties, "status")?.value;
      return [
        {
          id: portRef(port.name, port.version),
          path: `outputPorts[${i}]`,
          name: port.name,
          version: port.version,
          type: str(port.type),
          status: str(status),
          dataContractId: str(port.contractId) ?? null,
          contractField: `outputPorts[${i}].contractId`,
          autoApprove: flag(port, "autoApprove"),
          containsPii: flag(port, "containsPii"),
          ...(isRecord(server) ? { server } : {}),
          raw: port,
        },
      ];
    });
  },
};
