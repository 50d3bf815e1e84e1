import { Type, type Static } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";

export const CertificationSchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    name: Type.String({ minLength: 1, maxLength: 500, description: "Display name, e.g. Gold." }),
    rank: Type.Optional(Type.Integer({ description: "Order of certifications; lower first." })),
    description: Type.Optional(Type.String()),
    criteria: Type.Optional(Type.String({ description: "What a data product must meet to carry it." })),
    tag: Type.String({ minLength: 1, maxLength: 256, description: "The tag a data product carries in its `tags` to hold this certification." }),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
    restricted: Type.Optional(Type.Boolean({ description: "Only organization-scoped principals may assign or remove it." })),
  },
  { title: "Certification", description: "A quality level assigned to data products through their tags." },
);

export type Certification = Static<typeof CertificationSchema> & { id: string };
