import { Type, type Static } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";
import { Links, Tags } from "../teams/shapes.js";

export const SourceSystemSchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    name: Type.String({ minLength: 1, description: "Display name, e.g. Stock Service." }),
    owner: Type.String({ minLength: 1, description: "Id of the owning team." }),
    description: Type.Optional(Type.String()),
    tags: Type.Optional(Tags),
    links: Type.Optional(Links),
    custom: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Any additional text fields, stored and returned as sent." })),
  },
  { title: "SourceSystem", description: "An operational system that records business transactions and feeds data products." },
);

export type SourceSystem = Static<typeof SourceSystemSchema> & { id: string };
