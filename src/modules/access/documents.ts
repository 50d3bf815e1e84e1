import { parseInstant } from "../../platform/clock.js";
import type { Executor } from "../../platform/database/index.js";
import type { FieldViolation } from "../../platform/errors.js";
import { resourceRepository, type StoredResource } from "../catalog/resource-repository.js";
import type { DataProduct } from "../dataproducts/shapes.js";
import { findOutputPort } from "../../product-formats/ports.js";
import type { AccessRecord, ConsumerType } from "./repository.js";
import type { Access } from "./shapes.js";
import { withMembers } from "../../platform/objects.js";

/**
 * The access document: what a request body may set, how its references resolve against the
 * catalog, and how a stored access reads back (docs/product.md §5).
 */

/** The access as clients see it: the stored document with its state and derived members filled in. */
export function present(r: AccessRecord): Access {
  const { provisioning: _ignored, ...doc } = r.doc;
  const { dataContractId, dataContractVersion, ...provider } = doc.provider;
  const consumerTeamId = r.consumerTeamId ?? r.requestedConsumerTeamId;
  return {
    ...doc,
    id: r.id,
    info: { ...doc.info, status: r.status, active: r.active, ...(r.canceledAt !== null ? { canceledAt: r.canceledAt } : {}) },
    provider: {
      ...provider,
      teamId: r.providerTeamId ?? r.requestedProviderTeamId,
      ...(dataContractId != null ? { dataContractId } : {}),
      ...(dataContractVersion != null ? { dataContractVersion } : {}),
    },
    consumer: r.consumerType === "dataProduct" && consumerTeamId !== null ? { ...doc.consumer, teamId: consumerTeamId } : doc.consumer,
    ...(r.provisioning ? { provisioning: r.provisioning } : {}),
  };
}

/** An access's JSON text as its ETag digests it: GET and PUT answers carry the tag of this text. */
export function accessJson(access: Access): string {
  return JSON.stringify(access);
}

/** A body without its read-only members, which are ignored rather than refused (docs/product.md §4). */
export function readBody(body: Record<string, unknown>, id: string): Access {
  const input = structuredClone(body) as Access;
  delete input.provisioning;
  const { status: _s, active: _a, canceledAt: _c, ...info } = input.info;
  const { teamId: _t, dataContractId: _d, dataContractVersion: _v, ...provider } = input.provider;
  return withMembers(input, { id, info, provider }) as Access;
}

export interface Dates {
  startAt: string | null;
  endAt: string | null;
}

/** The window's instants, or a violation per date that is not one. */
export function parseDates(info: Access["info"], violations: FieldViolation[]): Dates {
  const dates: Dates = { startAt: null, endAt: null };
  for (const [field, key] of [["startDate", "startAt"], ["endDate", "endAt"], ["nextReassessmentDate", null]] as const) {
    const text = info[field];
    if (text === undefined || text === null) continue;
    const parsed = parseInstant(text);
    if (parsed === null) violations.push({ field: `info.${field}`, message: "must be an ISO 8601 date-time or date" });
    if (key !== null) dates[key] = parsed;
  }
  if (dates.startAt !== null && dates.endAt !== null && dates.endAt <= dates.startAt) {
    violations.push({ field: "info.endDate", message: "must be after startDate" });
  }
  return dates;
}

/** The output port an access names, with what the lifecycle needs of it. Port lookups go through here only. */
export function findPort(product: DataProduct, outputPortId: string): { id: string; dataContractId: string | null; autoApprove: boolean } | undefined {
  const port = findOutputPort(product, outputPortId);
  return port && { id: port.id, dataContractId: port.dataContractId, autoApprove: port.autoApprove };
}

/** The version of a stored data contract, whichever format it is in. */
function contractVersion(contract: StoredResource<Record<string, unknown>> | undefined): string | null {
  const doc = contract?.doc as { version?: unknown; info?: { version?: unknown } } | undefined;
  const version = doc?.info?.version ?? doc?.version;
  return typeof version === "string" ? version : null;
}

/** Everything a new request's references resolve to. */
export interface NewAccess extends Dates {
  doc: Access;
  /**
   * The id of the output port the request resolved to (ODPS `<name>@<version>` also when the body
   * named just `<name>`): the port the access holds, whatever versions the product adds later.
   */
  providerOutputPortId: string;
  autoApprove: boolean;
  providerTeamId: string;
  providerProductRowId: number;
  consumerType: ConsumerType;
  consumerDataProductId: string | null;
  consumerTeamId: string | null;
  consumerRowId: number | null;
}

const CONSUMER_KINDS = ["dataProductId", "teamId", "userId"] as const;

/** The kind of consumer a body names: a data product (its owner's teamId may come along), a team, or a person. */
export function consumerTypeOf(consumer: Access["consumer"]): ConsumerType | undefined {
  const named = CONSUMER_KINDS.filter((k) => consumer[k] !== undefined);
  if (named.length === 1) return named[0] === "dataProductId" ? "dataProduct" : named[0] === "teamId" ? "team" : "user";
  if (named.length === 2 && named.includes("dataProductId") && named.includes("teamId")) return "dataProduct";
  return undefined;
}

/** Checks a new request's references and derives what the catalog says about them; throws nothing, collects violations. */
export async function resolveNew(trx: Executor, organizationId: string, input: Access, violations: FieldViolation[]): Promise<NewAccess | undefined> {
  const dates = parseDates(input.info, violations);
  const consumerType = consumerTypeOf(input.consumer);
  if (consumerType === undefined) {
    violations.push({ field: "consumer", message: "must name one of dataProductId (optionally with its owner's teamId), teamId or userId" });
  }

  const { dataProductId: providerId, outputPortId } = input.provider;
  const product = await resourceRepository.get<DataProduct>(trx, organizationId, "dataproduct", providerId);
  const port = product && findPort(product.doc, outputPortId);
  if (!product) violations.push({ field: "provider.dataProductId", message: `no data product '${providerId}' exists` });
  else if (!port) violations.push({ field: "provider.outputPortId", message: `data product '${providerId}' has no output port '${outputPortId}'` });

  let consumerTeamId: string | null = null;
  let consumerRowId: number | null = null;
  const consumer = { ...input.consumer };
  if (consumerType === "dataProduct") {
    const id = consumer.dataProductId!;
    const owner = (await resourceRepository.get(trx, organizationId, "dataproduct", id))?.ownerTeamId;
    if (owner === undefined) violations.push({ field: "consumer.dataProductId", message: `no data product '${id}' exists` });
    else if (consumer.teamId !== undefined && consumer.teamId !== owner) {
      violations.push({ field: "consumer.teamId", message: `must be '${owner}', the owner of data product '${id}', or absent` });
    }
    consumerTeamId = owner ?? null;
    consumerRowId = (await resourceRepository.rowId(trx, organizationId, "dataproduct", id)) ?? null;
    // Derived when read, so that it follows the product's owner.
    delete consumer.teamId;
  } else if (consumerType === "team") {
    consumerRowId = (await resourceRepository.rowId(trx, organizationId, "team", consumer.teamId!)) ?? null;
    if (consumerRowId === null) violations.push({ field: "consumer.teamId", message: `no team '${consumer.teamId}' exists` });
    consumerTeamId = consumer.teamId!;
  }
  if (violations.length > 0 || !product || !port || consumerType === undefined) return undefined;

  const contract = port.dataContractId === null ? undefined : await resourceRepository.get<Record<string, unknown>>(trx, organizationId, "datacontract", port.dataContractId);
  const version = contractVersion(contract);
  return {
    ...dates,
    doc: {
      ...input,
      provider: { ...input.provider, ...(port.dataContractId !== null ? { dataContractId: port.dataContractId } : {}), ...(version !== null ? { dataContractVersion: version } : {}) },
      consumer,
    },
    providerOutputPortId: port.id,
    autoApprove: port.autoApprove,
    providerTeamId: product.ownerTeamId ?? "",
    providerProductRowId: (await resourceRepository.rowId(trx, organizationId, "dataproduct", providerId))!,
    consumerType,
    consumerDataProductId: consumer.dataProductId ?? null,
    consumerTeamId,
    consumerRowId,
  };
}

/**
 * The provider and consumer an update names must be those of the stored access. A data-product
 * consumer may carry its owner's teamId as read; it must then match. Returns the stored consumer.
 */
export function fixedViolations(existing: AccessRecord, input: Access): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const key of ["dataProductId", "outputPortId"] as const) {
    if (existing.doc.provider[key] !== input.provider[key]) violations.push({ field: `provider.${key}`, message: "cannot change once the access is requested" });
  }
  const stored = existing.doc.consumer;
  const sent = input.consumer;
  const sameIds = CONSUMER_KINDS.every((k) => k === "teamId" && existing.consumerType === "dataProduct" ? true : stored[k] === sent[k]);
  if (!sameIds || consumerTypeOf(sent) !== existing.consumerType) {
    violations.push({ field: "consumer", message: "cannot change once the access is requested; request a new access instead" });
  } else if (existing.consumerType === "dataProduct" && sent.teamId !== undefined && sent.teamId !== (existing.consumerTeamId ?? existing.requestedConsumerTeamId)) {
    violations.push({ field: "consumer.teamId", message: "must be the consuming data product's owner, or absent" });
  }
  return violations;
}
