import { Type, type Static } from "@sinclair/typebox";
import { OpenObject } from "../../platform/http/shapes.js";
import { Links } from "../teams/shapes.js";

/** Tag ids may be hierarchical: `Governance/PII` is the tag `PII` under `Governance`. */
export const TagId = Type.String({ minLength: 1, maxLength: 256, pattern: "^[^/\\u0000]+(?:/[^/\\u0000]+)*$" });

export const TagSchema = OpenObject(
  {
    id: Type.Optional(TagId),
    owner: Type.Optional(Type.String({ minLength: 1, description: "Id of the owning team; `info.owner` is accepted too, and this member is then filled from it." })),
    info: Type.Optional(
      OpenObject({
        owner: Type.Optional(Type.String({ minLength: 1, description: "Id of the owning team." })),
        description: Type.Optional(Type.String()),
      }),
    ),
    links: Type.Optional(Links),
    properties: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Any additional text fields, stored and returned as sent." })),
  },
  { title: "Tag", description: "A label for assets and other resources. Ids may contain `/` to form a hierarchy." },
);

export type Tag = Static<typeof TagSchema> & { id: string };
