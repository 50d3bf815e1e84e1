import { describe, expect, it } from "vitest";
import { referenceSchema } from "../helpers/reference.js";
import { GENERATED_MODELS, type ModelMember } from "./java-sdk.js";

/** What a generated model class makes of a schema of the reference description, in the table's terms. */
function members(schema: any): Record<string, ModelMember> {
  return Object.fromEntries(
    Object.entries<any>(schema.properties ?? {}).map(([name, property]) => {
      const member: ModelMember = {};
      if (property.type) member.type = property.type;
      if (property.type === "object" && !property.properties && property.additionalProperties) member.map = true;
      if (property.type === "object" && property.properties) member.properties = members(property);
      return [name, member];
    }),
  );
}

describe("the replayed Java SDK's model classes", () => {
  it.each(Object.keys(GENERATED_MODELS))("%s has the members the reference description declares", (name) => {
    expect(GENERATED_MODELS[name]).toEqual(members(referenceSchema(name)));
  });
});
