import type { Principal } from "../../platform/auth.js";
import { contractFormatOf, type ModelGroup } from "../../contract-formats/index.js";
import type { DocumentDefinition, DocumentService } from "../shared/document-service.js";
import { ownedDocument, ownerViolations } from "../shared/owned-documents.js";
import type { DataContract } from "./shapes.js";

export { checkSchema } from "../../contract-formats/dcs09.js";

export const contractFacts = (contract: DataContract) => contractFormatOf(contract).facts(contract);

export interface DataContractHooks {
  /** Throws 409 when an output port or an open access uses the contract. */
  checkNotInUse(ex: Parameters<NonNullable<DocumentDefinition<DataContract>["checkDeletable"]>>[0], organizationId: string, contractId: string): Promise<void>;
}

export function dataContractDefinition(hooks?: DataContractHooks): DocumentDefinition<DataContract> {
  return {
    kind: "datacontract",
    label: "Data contract",
    ...ownedDocument<DataContract>("data contract", contractFacts),
    async validate(ex, organizationId, contract) {
      const format = contractFormatOf(contract);
      const violations = format.validate(contract);
      const facts = format.facts(contract);
      // A missing owner is already a violation of the format's own rules where the format requires one.
      if (facts.owner !== undefined || !violations.some((v) => v.field === facts.ownerField)) {
        violations.push(...(await ownerViolations(ex, organizationId, facts)));
      }
      return violations;
    },
    ...(hooks ? { checkDeletable: (ex, organizationId, contract) => hooks.checkNotInUse(ex, organizationId, contract.id) } : {}),
    emitChange(emit, id, before, after) {
      emit(before === undefined ? "DataContractCreatedEvent" : after === undefined ? "DataContractDeletedEvent" : "DataContractUpdatedEvent", id);
    },
  };
}

/** The normalized models of a stored contract, group by group (one per typed schema, or the format's own). */
export async function contractModels(contracts: DocumentService<DataContract>, p: Principal, id: string) {
  const contract = await contracts.get(p, id);
  const schemas: ModelGroup[] = contractFormatOf(contract).models(contract);
  return { format: contractFormatOf(contract).name, models: schemas.flatMap((s) => s.models), schemas };
}
