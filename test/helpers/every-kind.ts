import { idSegment, type PageKind } from "../../src/platform/http/page-paths.js";
import type { ApiResponse, TestServer } from "./server.js";

/**
 * One resource of every kind the web app has a page for, written through the API under a chosen
 * id, for tests of the pages that `location-html` names. A Record, so a kind added to PAGE_KINDS
 * without a writer here does not compile.
 */

export const OWNER_TEAM = "owners";
export const BASE_CONTRACT = "base-contract";
export const BASE_PRODUCT = "base-product";

/** The team, contract and product the resources below name. */
export async function seedOwners(t: TestServer): Promise<void> {
  const ok = async (res: Promise<ApiResponse>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  };
  await ok(t.api("PUT", `/api/teams/${OWNER_TEAM}`, { name: "Owners" }));
  await ok(
    t.api("PUT", `/api/datacontracts/${BASE_CONTRACT}`, {
      dataContractSpecification: "0.9.3",
      info: { title: "Base contract", version: "1.0.0", owner: OWNER_TEAM },
      schema: { type: "custom", specification: "x" },
    }),
  );
  await ok(
    t.api("PUT", `/api/dataproducts/${BASE_PRODUCT}`, {
      dataProductSpecification: "0.0.1",
      info: { title: "Base product", owner: OWNER_TEAM },
      outputPorts: [{ id: "op1", name: "op1", dataContractId: BASE_CONTRACT, autoApprove: true }],
    }),
  );
}

/** What each kind's page shows of the resource written with `title` (its name, title or id). */
export const WRITE: Record<PageKind, (t: TestServer, id: string, title: string) => Promise<ApiResponse>> = {
  teams: (t, id, title) => t.api("PUT", `/api/teams/${idSegment(id)}`, { name: title }),
  dataproducts: (t, id, title) =>
    t.api("PUT", `/api/dataproducts/${idSegment(id)}`, { dataProductSpecification: "0.0.1", info: { title, owner: OWNER_TEAM, status: "active" } }),
  datacontracts: (t, id, title) =>
    t.api("PUT", `/api/datacontracts/${idSegment(id)}`, {
      dataContractSpecification: "0.9.3",
      info: { title, version: "1.0.0", owner: OWNER_TEAM },
      schema: { type: "custom", specification: "x" },
    }),
  access: (t, id, title) =>
    t.api("PUT", `/api/access/${idSegment(id)}`, {
      info: { purpose: title },
      provider: { dataProductId: BASE_PRODUCT, outputPortId: "op1" },
      consumer: { teamId: OWNER_TEAM },
    }),
  assets: (t, id, title) =>
    t.api("PUT", `/api/assets/${idSegment(id)}`, {
      info: { name: title, type: "snowflake_table", source: "snowflake", owner: OWNER_TEAM },
      columns: [{ name: "order_id", type: "VARCHAR(36)", description: "Order number", primaryKey: true }],
    }),
  sourcesystems: (t, id, title) => t.api("PUT", `/api/sourcesystems/${idSegment(id)}`, { name: title, owner: OWNER_TEAM, description: "Where orders start" }),
  definitions: (t, id, title) => t.api("PUT", `/api/definitions/${idSegment(id)}`, { owner: OWNER_TEAM, title, type: "string", maxLength: 100 }),
  tags: (t, id) => t.api("PUT", `/api/tags/${idSegment(id)}`, { owner: OWNER_TEAM, info: { description: "Personal data" } }),
  connectors: (t, id) => t.api("PUT", `/api/connectors/${idSegment(id)}`, { info: { type: "postgres-access" }, state: { lastEventId: "evt-42" } }),
  policies: (t, id, title) => t.api("PUT", `/api/policies/${idSegment(id)}`, { name: title, status: "Draft", content: "Every product names an owner." }),
  "classification-schemes": (t, id, title) =>
    t.api("PUT", `/api/classification-schemes/${idSegment(id)}`, { name: title, classifications: [{ externalId: "public", name: "Public", level: 1 }] }),
  certifications: (t, id, title) => t.api("PUT", `/api/certifications/${idSegment(id)}`, { name: title, tag: "certification-gold" }),
  "test-results": (t, id, title) =>
    t.api("POST", "/api/test-results", {
      id,
      dataContractId: BASE_CONTRACT,
      dataContractVersion: "1.0.0",
      result: "failed",
      checks: [{ type: "field_is_present", name: title, result: "failed", reason: "order_id is missing" }],
    }),
};

/** Tags and the page titles of tags are their ids; the others show `title`. */
export const SHOWS_ID: ReadonlySet<PageKind> = new Set(["tags", "connectors"]);
