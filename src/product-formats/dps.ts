/** Data Product Specification 0.0.1 (`dataProductSpecification`): `info.owner` and ports with an `id`. */
import { Type, type Static } from "@sinclair/typebox";
import type { ValidateFunction } from "ajv";
import { OpenObject, ResourceId } from "../platform/http/shapes.js";
import { createAjv, standardViolations } from "../platform/validation.js";
import { isRecord } from "../schema-formats/text.js";
import { infoFacts, str } from "../contract-formats/members.js";
import type { OutputPortView, ProductFormat } from "./types.js";

const Tags = Type.Array(Type.String());
const Links = Type.Record(Type.String(), Type.String(), { description: "Named links, e.g. documentation or a repository." });
const Custom = Type.Record(Type.String(), Type.Unknown(), { description: "Any additional data, stored and returned as sent." });

export const DpsOutputPortSchema = OpenObject(
  {
    id: ResourceId,
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    type: Type.Optional(Type.String({ description: "Technology of the port, e.g. postgres, bigquery, snowflake, kafka." })),
    status: Type.Optional(Type.String()),
    server: Type.Optional(OpenObject({}, { description: "Where the data is, e.g. {host, port, database, schema, table}." })),
    dataContractId: Type.Optional(Type.Union([ResourceId, Type.Null()])),
    containsPii: Type.Optional(Type.Boolean()),
    autoApprove: Type.Optional(Type.Boolean({ description: "Access requests for this port are approved on creation." })),
    tags: Type.Optional(Tags),
    links: Type.Optional(Links),
    custom: Type.Optional(Custom),
  },
  { title: "OutputPort" },
);

export const DpsSchema = OpenObject(
  {
    dataProductSpecification: Type.Optional(Type.String({ examples: ["0.0.1"] })),
    info: OpenObject({
      title: Type.String({ minLength: 1 }),
      owner: Type.String({ minLength: 1, description: "Id of the owning team." }),
      description: Type.Optional(Type.String()),
      status: Type.Optional(Type.String({ examples: ["draft", "active", "retired"] })),
      archetype: Type.Optional(Type.String({ examples: ["consumer-aligned", "aggregate", "source-aligned"] })),
      maturity: Type.Optional(Type.String({ examples: ["raw", "defined", "managed"] })),
    }),
    inputPorts: Type.Optional(Type.Array(OpenObject({}))),
    outputPorts: Type.Optional(Type.Array(DpsOutputPortSchema)),
    tags: Type.Optional(Tags),
    links: Type.Optional(Links),
    custom: Type.Optional(Custom),
  },
  { title: "DataProductSpecification" },
);

export type DpsOutputPort = Static<typeof DpsOutputPortSchema>;
export type DpsProduct = Static<typeof DpsSchema>;

let structure: ValidateFunction | undefined;

export const dpsFormat: ProductFormat = {
  name: "dps",
  label: "Data Product Specification 0.0.1",
  detects: () => true,
  validate(doc) {
    structure ??= createAjv().compile(DpsSchema);
    return structure(doc) ? [] : standardViolations(structure.errors);
  },
  facts(doc) {
    const info = isRecord(doc.info) ? doc.info : {};
    return { ...infoFacts(doc), archetype: str(info.archetype) };
  },
  outputPorts(doc) {
    if (!Array.isArray(doc.outputPorts)) return [];
    return doc.outputPorts.flatMap((port, i): OutputPortView[] => {
      if (!isRecord(port) || typeof port.id !== "string") return [];
      return [
        {
          id: port.id,
          path: `outputPorts[${i}]`,
          name: str(port.name),
          type: str(port.type),
          status: str(port.status),
          dataContractId: str(port.dataContractId) ?? null,
          contractField: `outputPorts[${i}].dataContractId`,
          autoApprove: port.autoApprove === true,
          containsPii: port.containsPii === true,
          ...(isRecord(port.server) ? { server: port.server } : {}),
          raw: port,
        },
      ];
    });
  },
};
