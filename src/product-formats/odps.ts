/**
 * Open Data Product Standard v1.0 and v1.1 (`apiVersion: v1.0.0` / `v1.1.0`, `kind: DataProduct`),
 * validated by Steward's own reading of the edition the document names. Output ports are keyed by
 * `name` + `version`, or by `name` alone when a 1.1 port has no version (docs/formats.md); what the
 * standard has no member for (`autoApprove`, `containsPii`, `status`, `server`) arrives as port
 * `customProperties`, the way the reference product's own example sends it.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import type { ValidateFunction } from "ajv";
import { customProperty, str } from "../contract-formats/members.js";
import { isOdps, standardOwnership } from "../formats/documents.js";
import { createAjv, standardViolations } from "../platform/validation.js";
import { isRecord } from "../schema-formats/text.js";
import type { OutputPortView, ProductFormat } from "./types.js";

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const closed = (properties: Record<string, TSchema>) => Type.Object(properties, { additionalProperties: false });
const Str = Type.String();
const Uri = Type.String({ format: "uri" });
const Tags = Type.Array(Str);

/** The editions Steward reads: 1.1.0, and 1.0.0 (which also judges the pre-release v0.9.0). */
export const ODPS_API_VERSIONS = ["v1.1.0", "v1.0.0", "v0.9.0"] as const;
const is11 = (doc: Record<string, unknown>) => doc.apiVersion === "v1.1.0";

/**
 * The whole document in one edition. 1.1 adds stable `id`s on list entries, `deprecated`,
 * `synonyms`, AI `context`, the product's `type`, and makes `status`, a port's `version`, an
 * input port's `contractId` and an SBOM's `url` optional.
 */
function odpsSchema(v11: boolean): TSchema {
  const none: Record<string, TSchema> = {};
  const id = v11 ? { id: opt(Str) } : none;
  const needed = <T extends TSchema>(schema: T) => (v11 ? opt(schema) : schema);
  const deprecated = v11 ? { deprecated: opt(Type.Boolean()) } : none;
  const CustomProperties = Type.Array(closed({ ...id, property: Str, value: Type.Unknown(), description: opt(Str) }));
  const AuthoritativeDefinitions = Type.Array(closed({ ...id, type: Str, url: Uri, description: opt(Str) }));
  const common = { tags: opt(Tags), customProperties: opt(CustomProperties), authoritativeDefinitions: opt(AuthoritativeDefinitions) };
  const Synonyms = Type.Array(
    closed({ id: opt(Str), synonym: Str, description: opt(Str), locale: opt(Str), source: opt(Str), status: opt(Str), customProperties: opt(CustomProperties) }),
  );
  const entry = { id: opt(Str), authoritativeDefinitions: opt(AuthoritativeDefinitions), tags: opt(Tags), customProperties: opt(CustomProperties) };
  const Context = closed({
    instructions: opt(Str),
    verifiedStatements: opt(Type.Array(closed({ ...entry, question: Str, answer: opt(Str) }))),
    constraints: opt(Type.Array(closed({ ...entry, constraint: Str }))),
  });
  const described = v11 ? { ...deprecated, synonyms: opt(Synonyms), context: opt(Context) } : none;
  return closed({
    apiVersion: Type.Union(ODPS_API_VERSIONS.map((v) => Type.Literal(v))),
    kind: Type.Literal("DataProduct"),
    id: Str,
    name: opt(Str),
    version: opt(Str),
    status: needed(Str),
    domain: opt(Str),
    tenant: opt(Str),
    ...(v11 ? { type: opt(Str) } : none),
    ...described,
    authoritativeDefinitions: opt(AuthoritativeDefinitions),
    description: opt(
      closed({ purpose: opt(Str), limitations: opt(Str), usage: opt(Str), authoritativeDefinitions: opt(AuthoritativeDefinitions), customProperties: opt(CustomProperties) }),
    ),
    customProperties: opt(CustomProperties),
    tags: opt(Tags),
    inputPorts: opt(Type.Array(closed({ ...id, name: Str, version: needed(Str), contractId: needed(Str), ...deprecated, ...common }))),
    outputPorts: opt(
      Type.Array(
        closed({
          ...id,
          name: Str,
          description: opt(Str),
          type: opt(Str),
          version: needed(Str),
          contractId: opt(Str),
          sbom: opt(Type.Array(closed({ ...id, type: opt(Str), url: needed(Uri) }))),
          inputContracts: opt(Type.Array(closed({ id: Str, version: Str }))),
          ...described,
          ...common,
        }),
      ),
    ),
    managementPorts: opt(
      Type.Array(closed({ ...id, name: Str, content: Str, type: opt(Str), url: opt(Uri), channel: opt(Str), description: opt(Str), ...deprecated, ...common })),
    ),
    support: opt(
      Type.Array(closed({ ...id, channel: Str, url: Uri, description: opt(Str), tool: opt(Str), scope: opt(Str), invitationUrl: opt(Uri), ...common })),
    ),
    team: opt(
      closed({
        name: opt(Str),
        description: opt(Str),
        members: opt(
          Type.Array(
            closed({
              ...id, username: Str, name: opt(Str), description: opt(Str), role: opt(Str), dateIn: opt(Type.String({ format: "date" })),
              dateOut: opt(Type.String({ format: "date" })), replacedByUsername: opt(Str), ...common,
            }),
          ),
        ),
        ...common,
      }),
    ),
    productCreatedTs: opt(Type.String({ format: "date-time" })),
  });
}

const structures = new Map<boolean, ValidateFunction>();

/** A custom property that is a yes/no flag: `true` or the text "true". */
function flag(port: Record<string, unknown>, name: string): boolean {
  const value = customProperty(port.customProperties, name)?.value;
  return value === true || (typeof value === "string" && value.toLowerCase() === "true");
}

/**
 * 1.1 names it `type`. 1.0 has no archetype member, so there it arrives as a custom property: `archetype`, or
 * `type` as the reference product's own example product sends it (`consumer-aligned`).
 */
function archetypeOf(doc: Record<string, unknown>): string | undefined {
  if (is11(doc) && str(doc.type) !== undefined) return str(doc.type);
  return str(customProperty(doc.customProperties, "archetype")?.value) ?? str(customProperty(doc.customProperties, "type")?.value);
}

/** The name an access uses for an ODPS output port: `<name>@<version>`, or its name alone when it has no version (1.1). */
export const portRef = (name: unknown, version: unknown) => (version === undefined ? String(name) : `${String(name)}@${String(version)}`);
const versionOk = (version: unknown, v11: boolean) => typeof version === "string" || (v11 && version === undefined);

export const odpsFormat: ProductFormat = {
  name: "odps",
  label: "Open Data Product Standard v1",
  detects: isOdps,
  validate(doc) {
    const v11 = is11(doc);
    let structure = structures.get(v11);
    if (!structure) structures.set(v11, (structure = createAjv().compile(odpsSchema(v11))));
    const violations = structure(doc) ? [] : standardViolations(structure.errors);
    const seen = new Map<string, number>();
    (Array.isArray(doc.outputPorts) ? doc.outputPorts : []).forEach((port, i) => {
      if (!isRecord(port) || typeof port.name !== "string" || !versionOk(port.version, v11)) return;
      const ref = portRef(port.name, port.version);
      const field = `outputPorts[${i}].${port.version === undefined ? "name" : "version"}`;
      if (seen.has(ref)) violations.push({ field, message: `output port ${ref} is already outputPorts[${seen.get(ref)}]: name and version identify a port` });
      else seen.set(ref, i);
    });
    return violations;
  },
  facts(doc) {
    const description = isRecord(doc.description) ? (str(doc.description.purpose) ?? str(doc.description.usage)) : undefined;
    const base = { title: str(doc.name) ?? String(doc.id), status: str(doc.status), description, domain: str(doc.domain), archetype: archetypeOf(doc) };
    return { ...base, ...standardOwnership(doc) };
  },
  outputPorts(doc) {
    if (!Array.isArray(doc.outputPorts)) return [];
    return doc.outputPorts.flatMap((port, i): OutputPortView[] => {
      if (!isRecord(port) || typeof port.name !== "string" || !versionOk(port.version, is11(doc))) return [];
      const server = customProperty(port.customProperties, "server")?.value;
      const status = customProperty(port.customProperties, "status")?.value;
      return [
        {
          id: portRef(port.name, port.version),
          path: `outputPorts[${i}]`,
          name: port.name,
          ...(typeof port.version === "string" ? { version: port.version } : {}),
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
