import { Type, type Static } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";

export const ClassificationSchema = OpenObject(
  {
    externalId: Type.String({ minLength: 1, maxLength: 256, description: "Identifier of the tier, unique in its scheme." }),
    name: Type.String({ minLength: 1, maxLength: 500, description: "Display name; the value written into specifications." }),
    level: Type.Optional(Type.Integer({ description: "Sensitivity; higher is more sensitive." })),
    description: Type.Optional(Type.String()),
    criteria: Type.Optional(Type.String({ description: "Markdown guidance on when this tier applies." })),
    colorScheme: Type.Optional(Type.String({ maxLength: 100 })),
    icon: Type.Optional(Type.String({ maxLength: 20_000, description: "SVG markup of the tier's badge; shown as an image, never inlined as markup." })),
  },
  { title: "Classification" },
);

export const ClassificationSchemeSchema = OpenObject(
  {
    externalId: Type.Optional(ResourceId),
    name: Type.String({ minLength: 1, maxLength: 500 }),
    description: Type.Optional(Type.String()),
    customProperty: Type.Optional(
      Type.String({ maxLength: 256, description: "Where the scheme's value is written: `classification` (the standard field, making this the organization's default scheme) or a custom property; `classification.<externalId>` when absent." }),
    ),
    rank: Type.Optional(Type.Integer({ description: "Display order; lower first." })),
    classifications: Type.Optional(Type.Array(ClassificationSchema, { maxItems: 100, description: "The ordered tiers of the scheme." })),
  },
  { title: "ClassificationScheme", description: "Ordered classification tiers; the default scheme maps to ODCS/ODPS `classification`." },
);

export type ClassificationScheme = Static<typeof ClassificationSchemeSchema> & { id: string };
