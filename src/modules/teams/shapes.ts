import { Type, type Static } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";

export const Links = Type.Record(Type.String(), Type.String(), { description: "Named links, e.g. documentation or a repository." });
export const Custom = Type.Record(Type.String(), Type.Unknown(), { description: "Any additional data, stored and returned as sent." });
export const Tags = Type.Array(Type.String());

export const TeamSchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    name: Type.String({ minLength: 1 }),
    type: Type.Optional(Type.String({ description: "For example Team, Group or Department." })),
    description: Type.Optional(Type.String()),
    parent: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Id of the parent team." })),
    members: Type.Optional(
      Type.Array(
        OpenObject({
          emailAddress: Type.String({ format: "email" }),
          role: Type.Optional(Type.String()),
        }),
      ),
    ),
    tags: Type.Optional(Tags),
    links: Type.Optional(Links),
    custom: Type.Optional(Custom),
  },
  { title: "Team" },
);

export type Team = Static<typeof TeamSchema> & { id: string };
