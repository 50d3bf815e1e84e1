import type { Principal } from "../../platform/auth.js";
import { invalid, type FieldViolation } from "../../platform/errors.js";
import { normalizeSchemaType, parseSchema, type NormalizedModel } from "../../schema-formats/index.js";
import type { DocumentDefinition, DocumentService } from "../shared/document-service.js";
import { ownedDocument, ownerViolations } from "../shared/owned-documents.js";
import type { DataContract, SchemaObject } from "./shapes.js";

export interface ParsedSchema {
  type: string;
  detectedType: string;
  models: NormalizedModel[];
}

export type SchemaCheck = { ok: true; parsed: ParsedSchema } | { ok: false; violations: FieldViolation[] };

/** Parses one Schema object whose place in the request body is `path`. */
export function checkSchema(schema: unknown, path: string): SchemaCheck {
  const result = parseSchema(schema, path);
  if (!result.ok) return { ok: false, violations: result.violations };
  const type = normalizeSchemaType((schema as SchemaObject).type) ?? String((schema as SchemaObject).type);
  return { ok: true, parsed: { type, detectedType: result.detectedType, models: result.models } };
}

function schemasOf(contract: DataContract): Array<{ schema: SchemaObject; path: string }> {
  return Array.isArray(contract.schema)
    ? contract.schema.map((schema, i) => ({ schema, path: `schema[${i}]` }))
    : [{ schema: contract.schema, path: "schema" }];
}

export const dataContractDefinition: DocumentDefinition<DataContract> = {
  kind: "datacontract",
  label: "Data contract",
  ...ownedDocument<DataContract>("data contract"),
  async validate(ex, organizationId, contract) {
    const violations = await ownerViolations(ex, organizationId, contract.info.owner);
    for (const { schema, path } of schemasOf(contract)) {
      const check = checkSchema(schema, path);
      if (!check.ok) violations.push(...check.violations);
    }
    return violations;
  },
  emitChange(emit, id, before, after) {
    emit(before === undefined ? "DataContractCreatedEvent" : after === undefined ? "DataContractDeletedEvent" : "DataContractUpdatedEvent", id);
  },
};

/** The normalized models of a stored contract, schema by schema. */
export async function contractModels(contracts: DocumentService<DataContract>, p: Principal, id: string) {
  const contract = await contracts.get(p, id);
  const schemas: ParsedSchema[] = [];
  for (const { schema, path } of schemasOf(contract)) {
    const check = checkSchema(schema, path);
    // Stored contracts were valid when written; a parser that has since become stricter says so here.
    if (!check.ok) throw invalid(`The stored schema at ${path} no longer validates.`, check.violations);
    schemas.push(check.parsed);
  }
  return { models: schemas.flatMap((s) => s.models), schemas };
}
