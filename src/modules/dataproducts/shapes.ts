import { Type, type Static } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";
import { Custom, Links, Tags } from "../teams/shapes.js";

export const OutputPortSchema = OpenObject(
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

export const DataProductSchema = OpenObject(
  {
    dataProductSpecification: Type.Optional(Type.String({ examples: ["0.0.1"] })),
    id: Type.Optional(ResourceId),
    info: OpenObject({
      title: Type.String({ minLength: 1 }),
      owner: Type.String({ minLength: 1, description: "Id of the owning team." }),
      description: Type.Optional(Type.String()),
      status: Type.Optional(Type.String({ examples: ["draft", "active", "retired"] })),
      archetype: Type.Optional(Type.String({ examples: ["consumer-aligned", "aggregate", "source-aligned"] })),
      maturity: Type.Optional(Type.String({ examples: ["raw", "defined", "managed"] })),
    }),
    inputPorts: Type.Optional(Type.Array(OpenObject({}))),
    outputPorts: Type.Optional(Type.Array(OutputPortSchema)),
    tags: Type.Optional(Tags),
    links: Type.Optional(Links),
    custom: Type.Optional(Custom),
  },
  { title: "DataProduct" },
);

export type OutputPort = Static<typeof OutputPortSchema>;
export type DataProduct = Static<typeof DataProductSchema> & { id: string };
