/**
 * `GET /api/access/{id}/privileges`: the access's privileges plan (docs/consumers.md, "The
 * privileges plan"), made by the same pure planner the connectors grant from, from the access,
 * its output port as the product stands now, and the current text of the data contract the
 * access was requested under.
 */
import { Type, type Static } from "@sinclair/typebox";
import { parseContractAhead } from "../../contract-formats/models.js";
import type { Parsing } from "../../schema-formats/off-thread.js";
import type { Executor } from "../../platform/database/index.js";
import { accessRoles, contractInput, portInput } from "../../privileges/inputs.js";
import { planPrivileges, type PrivilegesPlan } from "../../privileges/plan.js";
import { findOutputPort } from "../../product-formats/ports.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import type { AccessRecord } from "./repository.js";

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const PrivilegesPlanSchema = Type.Object(
  {
    accessId: Type.String(),
    dataContractId: Nullable(Type.String()),
    dataContractVersion: Nullable(Type.String()),
    scheme: Type.Object({ name: Type.String(), levels: Type.Array(Type.String(), { description: "Lowest first." }) }),
    ceiling: Type.Object({
      clear: Type.String({ description: "The highest level read in clear: a level, `any` (no ceiling) or `none`." }),
      masked: Type.String({ description: "The highest level read masked: a level, `any` or `none`." }),
      reasons: Type.Array(Type.String()),
    }),
    roles: Type.Array(
      Type.Object({ role: Type.String(), defined: Type.Boolean(), maxClassification: Nullable(Type.String()), maskClassification: Nullable(Type.String()) }),
    ),
    objects: Type.Array(
      Type.Object({
        server: Type.String({ description: "The name the port's server gives (`host`): a connector's configured server." }),
        schema: Type.String(),
        table: Nullable(Type.String()),
        scope: Type.Union([Type.Literal("schema"), Type.Literal("table"), Type.Literal("columns"), Type.Literal("none")]),
        columns: Type.Array(
          Type.Object({
            name: Type.String(),
            classification: Nullable(Type.String()),
            decision: Type.Union([Type.Literal("granted"), Type.Literal("masked"), Type.Literal("withheld")]),
            reason: Type.String(),
          }),
        ),
      }),
    ),
    notes: Type.Array(Type.String()),
  },
  { description: "What the access allows, per object and column, and why. The same inputs give the same plan, byte for byte." },
);

export type PrivilegesPlanDocument = Static<typeof PrivilegesPlanSchema>;

/** The plan of a stored access; a port or contract that is gone plans from what remains. */
export async function planOfAccess(ex: Executor, record: AccessRecord, parsing: Parsing): Promise<PrivilegesPlan> {
  const product = await resourceRepository.get<Record<string, unknown>>(ex, record.organizationId, "dataproduct", record.providerDataProductId);
  const port = product && findOutputPort(product.doc, record.doc.provider.outputPortId);
  const contractId = record.doc.provider.dataContractId;
  const contract = typeof contractId === "string" ? await resourceRepository.get<Record<string, unknown>>(ex, record.organizationId, "datacontract", contractId) : undefined;
  if (contract) await parseContractAhead(contract.doc, parsing);
  return planPrivileges({
    accessId: record.id,
    roles: accessRoles(record.doc as unknown as Record<string, unknown>),
    port: port ? portInput(port.raw) : {},
    contract: contract ? contractInput(contract.id, contract.doc, parsing.limits) : null,
  });
}
