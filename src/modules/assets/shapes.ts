import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";
import { Custom, Links, Tags } from "../teams/shapes.js";

/** A column; `properties` nests the fields of a record and `items` the element of an array. */
export const AssetColumnSchema = Type.Recursive(
  (Self) =>
    OpenObject({
      name: Type.String({ minLength: 1 }),
      type: Type.String({ description: "The type in the source's own type system, e.g. VARCHAR(100) or an Avro type." }),
      description: Type.Optional(Type.String()),
      required: Type.Optional(Type.Boolean()),
      unique: Type.Optional(Type.Boolean()),
      primaryKey: Type.Optional(Type.Boolean()),
      properties: Type.Optional(Type.Array(Self)),
      items: Type.Optional(Self as TSchema),
      qualifiedName: Type.Optional(Type.String({ deprecated: true })),
      tags: Type.Optional(Tags),
      links: Type.Optional(Links),
      custom: Type.Optional(Custom),
    }),
  { $id: "AssetColumn", title: "AssetColumn" },
);

export const AssetSchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    info: Type.Optional(
      OpenObject({
        owner: Type.Optional(Type.String({ minLength: 1, description: "Id of the owning team, when a team owns it." })),
        source: Type.Optional(Type.String({ examples: ["snowflake", "databricks", "unity"] })),
        sourceId: Type.Optional(Type.String({ description: "The asset's id in its source." })),
        sourceUrl: Type.Optional(Type.String()),
        type: Type.Optional(Type.String({ examples: ["snowflake_table", "databricks_table", "kafka_topic"] })),
        name: Type.Optional(Type.String({ description: "Display name, usually the last part of the qualified name." })),
        qualifiedName: Type.Optional(Type.String({ deprecated: true })),
        version: Type.Optional(Type.String()),
        status: Type.Optional(Type.String()),
        description: Type.Optional(Type.String()),
      }),
    ),
    properties: Type.Optional(OpenObject({}, { deprecated: true, description: "Older name of `custom`; kept as sent." })),
    custom: Type.Optional(Custom),
    columns: Type.Optional(Type.Array(AssetColumnSchema)),
    relationships: Type.Optional(
      Type.Array(
        OpenObject({
          relationshipType: Type.Optional(Type.String({ description: "`parent` links a child asset to its parent." })),
          assetId: Type.Optional(Type.String({ description: "Id of the related asset." })),
        }),
      ),
    ),
    tags: Type.Optional(Tags),
    assignedTags: Type.Optional(Type.Array(Type.String(), { readOnly: true, description: "Tags assigned in Steward (assigned-tags); ignored in a PUT body." })),
    links: Type.Optional(Links),
  },
  { title: "Asset", description: "A table, view, topic, file or other data resource that a data platform syncs." },
);

export type Asset = Static<typeof AssetSchema> & { id: string };
