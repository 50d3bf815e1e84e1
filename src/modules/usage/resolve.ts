import type { Executor } from "../../platform/database/index.js";
import { findOutputPort } from "../../product-formats/ports.js";
import { lineageRepository, type ProductRow } from "../lineage/repository.js";
import type { SpanUse } from "./otlp.js";
import { usageRepository, type AccessRow } from "./repository.js";

/** Who used a product: a data product (with its owner team), a team, or the service that reported the span. */
export interface UseConsumer {
  type: "dataProduct" | "team" | "service";
  id: string;
  dataProductId: string | null;
  teamId: string | null;
}

/** A span's use checked against the catalog: what it used, and who. */
export interface ResolvedUse {
  dataProductId: string;
  providerTeamId: string | null;
  outputPortId: string | null;
  dataContractId: string | null;
  accessId: string | null;
  consumer: UseConsumer;
}

/** The service name OpenTelemetry SDKs report when none is configured. */
export const UNKNOWN_SERVICE = "unknown_service";
/** Longest id a span may name in an attribute Steward reads. */
const MAX_ID = 256;

/**
 * The catalog rows one request names, looked up together before its spans are resolved: its
 * accesses in one statement, then the products (named, and of those accesses) and teams in one
 * each, whatever the number of spans (500 ids a statement).
 */
export class CatalogLookups {
  private constructor(
    private readonly products: Map<string, ProductRow>,
    private readonly accesses: Map<string, AccessRow>,
    private readonly teams: Set<string>,
  ) {}

  static async of(ex: Executor, organizationId: string, uses: readonly SpanUse[]): Promise<CatalogLookups> {
    const ids = (pick: (use: SpanUse) => string | null) => uses.flatMap((use) => (pick(use) === null ? [] : [pick(use)!]));
    const accessIds = ids((use) => use.accessId);
    const accesses = accessIds.length === 0 ? [] : await usageRepository.accessesByIds(ex, organizationId, accessIds);
    const productIds = [...ids((use) => use.dataProductId), ...ids((use) => use.consumerDataProductId), ...accesses.map((a) => a.provider_data_product_id)];
    const teamIds = ids((use) => use.consumerTeamId);
    const products = productIds.length === 0 ? [] : await lineageRepository.productsByIds(ex, organizationId, productIds);
    const teams = teamIds.length === 0 ? new Set<string>() : await usageRepository.teamsAmong(ex, organizationId, teamIds);
    return new CatalogLookups(new Map(products.map((r) => [r.id, r])), new Map(accesses.map((r) => [r.id, r])), teams);
  }

  product(id: string): ProductRow | undefined {
    return this.products.get(id);
  }

  access(id: string): AccessRow | undefined {
    return this.accesses.get(id);
  }

  team(id: string): boolean {
    return this.teams.has(id);
  }
}

/**
 * Checks a span's use against the catalog (docs/lineage.md, "Usage"): the product, port and
 * access it names must exist and agree, and so must the consumer it names. Answers the use, or
 * why the span is rejected.
 */
export function resolveUse(use: SpanUse, catalog: CatalogLookups): ResolvedUse | { reason: string } {
  if (use.dataProductId === null && use.outputPortId === null && use.accessId === null) {
    return { reason: "names no dataproduct.id, outputport.id or access.id, so it is no use of a data product" };
  }
  for (const [name, value] of Object.entries({ traceId: use.traceId, dataProductId: use.dataProductId, outputPortId: use.outputPortId, accessId: use.accessId, consumerDataProductId: use.consumerDataProductId, consumerTeamId: use.consumerTeamId, serviceName: use.serviceName })) {
    if (value !== null && (value.length > MAX_ID || value.includes("\u0000"))) return { reason: `${name} must be at most ${MAX_ID} characters without NUL` };
  }
  if (use.start === "") return { reason: "startTimeUnixNano is not an instant" };

  let access: AccessRow | undefined;
  if (use.accessId !== null) {
    access = catalog.access(use.accessId);
    if (access === undefined) return { reason: `access.id '${use.accessId}' names no access` };
    if (use.dataProductId !== null && use.dataProductId !== access.provider_data_product_id) {
      return { reason: `access '${access.id}' is to data product '${access.provider_data_product_id}', not '${use.dataProductId}'` };
    }
  }
  const dataProductId = use.dataProductId ?? access?.provider_data_product_id;
  if (dataProductId === undefined) return { reason: "outputport.id needs dataproduct.id (or access.id) to say whose port it is" };
  const product = catalog.product(dataProductId);
  if (product === undefined) return { reason: `data product '${dataProductId}' is not in the catalog` };

  const portRef = use.outputPortId ?? access?.provider_output_port_id ?? null;
  let outputPortId: string | null = null;
  let dataContractId: string | null = null;
  if (portRef !== null) {
    const port = findOutputPort(JSON.parse(product.doc) as Record<string, unknown>, portRef);
    if (port === undefined) return { reason: `data product '${dataProductId}' has no output port '${portRef}'` };
    if (access !== undefined && port.id !== access.provider_output_port_id) return { reason: `access '${access.id}' is to output port '${access.provider_output_port_id}', not '${port.id}'` };
    outputPortId = port.id;
    dataContractId = port.dataContractId;
  }

  const consumer = consumerOf(use, access, catalog);
  if ("reason" in consumer) return consumer;
  return { dataProductId, providerTeamId: product.owner_team_id, outputPortId, dataContractId, accessId: access?.id ?? null, consumer };
}

/** Who used it: the consumer the span names, else the access's, else the service that reported it. */
function consumerOf(use: SpanUse, access: AccessRow | undefined, catalog: CatalogLookups): UseConsumer | { reason: string } {
  if (use.consumerDataProductId !== null) {
    const product = catalog.product(use.consumerDataProductId);
    if (product === undefined) return { reason: `consumer.dataproduct.id '${use.consumerDataProductId}' is not in the catalog` };
    return { type: "dataProduct", id: product.id, dataProductId: product.id, teamId: product.owner_team_id };
  }
  if (use.consumerTeamId !== null) {
    if (!(catalog.team(use.consumerTeamId))) return { reason: `consumer.team.id '${use.consumerTeamId}' names no team` };
    return { type: "team", id: use.consumerTeamId, dataProductId: null, teamId: use.consumerTeamId };
  }
  if (access?.consumer_type === "dataProduct" && access.consumer_data_product_id !== null) {
    return { type: "dataProduct", id: access.consumer_data_product_id, dataProductId: access.consumer_data_product_id, teamId: access.consumer_team_id };
  }
  if (access?.consumer_type === "team" && access.consumer_team_id !== null) {
    return { type: "team", id: access.consumer_team_id, dataProductId: null, teamId: access.consumer_team_id };
  }
  return { type: "service", id: use.serviceName ?? UNKNOWN_SERVICE, dataProductId: null, teamId: null };
}
