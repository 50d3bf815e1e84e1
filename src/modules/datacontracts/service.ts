import type { Principal } from "../../platform/auth.js";
import { contractFormatOf } from "../../contract-formats/index.js";
import { contractModels as boundedContractModels, contractViolations, parseContractAhead } from "../../contract-formats/models.js";
import type { Executor } from "../../platform/database/index.js";
import { conflict, tooLarge } from "../../platform/errors.js";
import { outputPorts } from "../../product-formats/ports.js";
import type { DataProduct } from "../dataproducts/shapes.js";
import { parseSchemaOffThread, type Parsing } from "../../schema-formats/off-thread.js";
import type { CatalogKind, DocumentService } from "../catalog/document-service.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import { ownedDocument, ownerViolations } from "../catalog/owned-documents.js";
import type { DataContract } from "./shapes.js";
import { contractView } from "../../contract-view/view.js";
import { yamlSourceOf } from "../../platform/yaml-sources.js";
import type { DocumentLimits } from "../catalog/document-limits.js";
import { contractYamlRepository } from "./yaml-repository.js";
import type { ContractVersionService } from "./versions/service.js";

export { checkSchema } from "../../contract-formats/dcs09.js";

/** Parses one Schema object ahead, on a worker thread when it is big (see `parseContractAhead`); 429 when every worker is busy. */
export async function parseSchemaAhead(schema: unknown, path: string, parsing: Parsing): Promise<void> {
  await parseSchemaOffThread(schema, path, parsing);
}

export const contractFacts = (contract: DataContract) => contractFormatOf(contract).facts(contract);

export interface DataContractHooks {
  /** Requested, approved or active accesses requested under the contract. */
  countOpenAccesses(ex: Executor, organizationId: string, contractId: string): Promise<number>;
  /** The contract's history and its breaking-change gate (docs/product.md §9). */
  versions?: ContractVersionService;
}

/** The output ports (as `product/port`) that offer their data under the contract. */
async function portsUsing(ex: Executor, organizationId: string, contractId: string): Promise<string[]> {
  const candidates = await resourceRepository.listMentioning<DataProduct>(ex, organizationId, "dataproduct", JSON.stringify(contractId));
  return candidates.flatMap((product) => outputPorts(product.doc).filter((p) => p.dataContractId === contractId).map((p) => `${product.id}/${p.id}`));
}

/** A contract in use stays (docs/product.md §4): 409 naming what uses it. */
async function checkNotInUse(hooks: DataContractHooks, ex: Executor, organizationId: string, contractId: string): Promise<void> {
  const ports = await portsUsing(ex, organizationId, contractId);
  if (ports.length > 0) {
    const named = ports.slice(0, 10).map((p) => `'${p}'`).join(", ") + (ports.length > 10 ? ` and ${ports.length - 10} more` : "");
    throw conflict(`Data contract '${contractId}' is the contract of output port(s) ${named}. Point them at another contract first.`);
  }
  const accesses = await hooks.countOpenAccesses(ex, organizationId, contractId);
  if (accesses > 0) throw conflict(`${accesses} requested or approved access(es) were granted under data contract '${contractId}'. Cancel or delete them first.`);
}

/** ODCS makes no member name an owner team: a contract naming none is the organization's (docs/formats.md). */
const ownerlessAllowed = (contract: DataContract) => contractFormatOf(contract).name === "odcs";
/** The contract's owner team; null for one the organization owns; undefined when it names none and must. */
export const contractOwner = (contract: DataContract): string | null | undefined => contractFacts(contract).owner ?? (ownerlessAllowed(contract) ? null : undefined);
export const HOW_TO_OWN =
  "A team names itself the owner of an ODCS contract in `team.name` (v3.1 and later), in a custom property `owner` (customProperties: [{property: owner, value: <team id>}]) or in `domain`; of a Data Contract Specification contract in `info.owner`.";

/** `parsing`: the application's parse limits and worker threads, which the contracts' schemas are held to. */
export function dataContractKind(hooks: DataContractHooks, limits: DocumentLimits, parsing: Parsing): CatalogKind<DataContract> {
  return {
    kind: "datacontract",
    label: "Data contract",
    ...ownedDocument<DataContract>("data contract", contractFacts, { ownerless: ownerlessAllowed, howToOwn: HOW_TO_OWN }),
    // The big typed schemas of a 0.9 contract are parsed on worker threads before the write
    // transaction: validation then finds the results instead of parsing while holding a lock.
    async precheck(contract) {
      await parseContractAhead(contract, parsing);
      return [];
    },
    async validate(ex, organizationId, contract) {
      const violations = contractViolations(contract, parsing.limits);
      const facts = contractFacts(contract);
      // A missing owner is already a violation of the format's own rules where the format requires
      // one; an ODCS contract may name none, and the organization owns it.
      if (facts.owner === undefined && ownerlessAllowed(contract)) return violations;
      if (facts.owner !== undefined || !violations.some((v) => v.field === facts.ownerField)) {
        violations.push(...(await ownerViolations(ex, organizationId, facts)));
      }
      return violations;
    },
    checkDeletable: (ex, organizationId, contract) => checkNotInUse(hooks, ex, organizationId, contract.id),
    ...yamlHooks(hooks.versions ? versionHooks(hooks.versions) : {}, limits),
    emitChange(emit, id, before, after, extras) {
      if (before === undefined) emit("DataContractCreatedEvent", id);
      else if (after === undefined) emit("DataContractDeletedEvent", id);
      else emit("DataContractUpdatedEvent", id, { breaking: extras?.breaking ?? false });
    },
  };
}

/** Every write keeps its document as a version; an update passes the breaking-change gate first. */
function versionHooks(versions: ContractVersionService): Pick<CatalogKind<DataContract>, "review" | "written"> {
  return {
    review: async (ex, p, before, after, options) => versions.review(ex, p, before, after, options.allowBreaking === "true"),
    written: async (ex, p, id, after) => (after === undefined ? versions.forget(ex, p.organizationId, id) : versions.record(ex, p, id, after.doc, after.json)),
  };
}

/**
 * A contract written as YAML keeps that text (comments, order, quoting) beside the document; one
 * written as JSON has none and is read as generated YAML (docs/formats.md). The text is held to
 * the stored-document limit like the document itself.
 */
function yamlHooks(versions: Pick<CatalogKind<DataContract>, "review" | "written">, limits: DocumentLimits): Pick<CatalogKind<DataContract>, "review" | "written" | "unchanged"> {
  const keep = async (ex: Executor, organizationId: string, id: string, doc: DataContract) => {
    const text = yamlSourceOf(doc) ?? null;
    if (text !== null) checkYamlSize(text, limits.documentBytes);
    await contractYamlRepository.set(ex, organizationId, id, text);
  };
  return {
    ...versions,
    async written(ex, p, id, after) {
      await versions.written?.(ex, p, id, after);
      if (after !== undefined) await keep(ex, p.organizationId, id, after.doc);
    },
    unchanged: (ex, p, id, incoming) => keep(ex, p.organizationId, id, incoming),
  };
}

/** Throws 413 when the YAML text as written is over the limit of one stored document. */
function checkYamlSize(text: string, limit: number): void {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > limit) throw tooLarge(`The data contract's YAML text is ${bytes} bytes, more than the limit of ${limit} bytes for one stored document (DOCUMENT_LIMIT_BYTES).`);
}

/** The contract's YAML as written, or null when it was last written as JSON (readers generate YAML then). */
export async function contractYamlText(contracts: DocumentService<DataContract>, database: Executor, p: Principal, id: string): Promise<{ contract: DataContract; text: string | null }> {
  const contract = await contracts.get(p, id);
  return { contract, text: await contractYamlRepository.get(database, p.organizationId, id) };
}

/** The normalized models of a stored contract, group by group (one per typed schema, or the format's own). */
export async function contractModels(contracts: DocumentService<DataContract>, parsing: Parsing, p: Principal, id: string) {
  const contract = await contracts.get(p, id);
  await parseContractAhead(contract, parsing);
  const schemas = boundedContractModels(contract, parsing.limits);
  const definitions = schemas.flatMap((s) => s.definitions ?? []);
  return { format: contractFormatOf(contract).name, models: schemas.flatMap((s) => s.models), ...(definitions.length > 0 ? { definitions } : {}), schemas };
}

/** The contract as people read it (src/contract-view): every promise, from any format. */
export async function contractViewOf(contracts: DocumentService<DataContract>, parsing: Parsing, p: Principal, id: string) {
  const contract = await contracts.get(p, id);
  await parseContractAhead(contract, parsing);
  return contractView(contract, boundedContractModels(contract, parsing.limits));
}
