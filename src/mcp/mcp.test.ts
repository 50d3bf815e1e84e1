import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../test/helpers/databases.js";
import { request, type TestServer } from "../../test/helpers/server.js";
import { createTeamKey, putOrFail, suiteServer } from "../../test/helpers/suite-server.js";

/** An MCP client of the official SDK, over Streamable HTTP, sending `key`. */
async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: "steward-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { "x-api-key": key } } }));
  return client;
}

const text = (result: any): string => result.content?.[0]?.text ?? "";
const json = (result: any): any => JSON.parse(text(result));

describe.each(DATABASES)("the MCP interface (%s)", (kind) => {
  let analyticsKey: string;
  let readKey: string;
  const t = suiteServer(kind, { teams: { payments: "Payments", analytics: "Analytics" }, setup: catalogAndKeys });

  /** A contract and the product that serves it, and the analytics team's two keys. */
  async function catalogAndKeys(t: TestServer) {
    await putOrFail(t, "/api/datacontracts/orders-v1", {
      apiVersion: "v3.1.0",
      kind: "DataContract",
      id: "orders-v1",
      name: "Orders",
      version: "1.0.0",
      status: "active",
      team: { name: "payments" },
      schema: [{ name: "orders", properties: [{ name: "order_id", logicalType: "string" }] }],
    });
    await putOrFail(t, "/api/dataproducts/orders", {
      dataProductSpecification: "0.0.1",
      info: { title: "Orders", owner: "payments" },
      outputPorts: [{ id: "warehouse", name: "Warehouse", dataContractId: "orders-v1" }],
    });
    analyticsKey = await createTeamKey(t, "analytics");
    readKey = (await t.api("POST", "/api/api-keys", { scope: "team_read", teamId: "analytics" })).body.key;
  }

  it("lists every tool, and answers search, reads and an access request as the API would", async () => {
    const client = await connect(t.url, analyticsKey);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(["access_status", "get_data_contract", "get_data_product", "get_usage", "list_my_accesses", "request_access", "search"]);
      expect(tools.find((x) => x.name === "request_access")?.inputSchema.required).toEqual(["dataProductId", "outputPortId", "purpose"]);

      const found = json(await client.callTool({ name: "search", arguments: { query: "order_id" } }));
      expect(found.map((r: any) => r.id)).toEqual(["orders-v1"]);
      expect(json(await client.callTool({ name: "get_data_product", arguments: { id: "orders" } })).outputPorts[0].id).toBe("warehouse");
      const contract = json(await client.callTool({ name: "get_data_contract", arguments: { id: "orders-v1" } }));
      expect(contract).toMatchObject({ document: { id: "orders-v1" }, context: null });

      const requested = json(await client.callTool({ name: "request_access", arguments: { dataProductId: "orders", outputPortId: "warehouse", purpose: "Churn model" } }));
      expect(requested).toMatchObject({ info: { purpose: "Churn model", status: "requested" }, consumer: { teamId: "analytics" } });
      expect(json(await client.callTool({ name: "access_status", arguments: { id: requested.id } })).info.status).toBe("requested");
      expect(json(await client.callTool({ name: "list_my_accesses", arguments: {} })).map((a: any) => a.id)).toEqual([requested.id]);
      // The API sees the same access, made by this key.
      const history = await t.api("GET", `/api/access/${requested.id}/history`);
      expect(history.body[0].principal).toMatch(/^api-key:/);
    } finally {
      await client.close();
    }
  });

  it("can do no more than its key: a read-only key's request is refused, another team's product stays the provider's", async () => {
    const reader = await connect(t.url, readKey);
    try {
      const refused = await reader.callTool({ name: "request_access", arguments: { dataProductId: "orders", outputPortId: "warehouse", purpose: "x" } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^403: /);
    } finally {
      await reader.close();
    }
    const client = await connect(t.url, analyticsKey);
    try {
      // Asking for another team as the consumer is refused as through the API.
      const foreign = await client.callTool({ name: "request_access", arguments: { dataProductId: "orders", outputPortId: "warehouse", purpose: "x", consumerTeamId: "payments" } });
      expect(foreign.isError).toBe(true);
      expect(text(foreign)).toMatch(/^403: /);
      const missing = await client.callTool({ name: "get_data_product", arguments: { id: "nope" } });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/^404: /);
      await expect(client.callTool({ name: "get_data_product", arguments: { id: 7 } })).rejects.toThrow(/not valid/);
      await expect(client.callTool({ name: "drop_tables", arguments: {} })).rejects.toThrow(/no tool/);
    } finally {
      await client.close();
    }
  });

  it("answers who used a product or an access as the API does, for the keys the API answers", async () => {
    const span = (spanId: string, start: string, attributes: Record<string, string>) => ({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId,
      name: "SELECT orders",
      startTimeUnixNano: String(Date.parse(start) * 1_000_000),
      attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
    });
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "bi" } }] },
          scopeSpans: [{ scope: { name: "usage" }, spans: [span("a1", "2026-06-01T08:00:00Z", { "dataproduct.id": "orders", "consumer.team.id": "analytics" }), span("a2", "2026-06-02T08:00:00Z", { "dataproduct.id": "orders", "consumer.team.id": "analytics" })] }],
        },
      ],
    };
    expect((await t.api("POST", "/api/v1/traces", body)).body).toEqual({});
    const reader = await connect(t.url, readKey);
    try {
      const used = await reader.callTool({ name: "get_usage", arguments: { dataProductId: "orders" } });
      expect(used.isError).toBeFalsy();
      expect(json(used)).toEqual({ count: 2, consumers: [{ type: "team", id: "analytics", count: 2, lastUsedAt: "2026-06-02T08:00:00.000Z" }] });
      expect(json(used)).toEqual((await t.api("GET", "/api/dataproducts/orders/usage", undefined, { key: readKey })).body);
      const accessId = json(await reader.callTool({ name: "list_my_accesses", arguments: {} }))[0].id;
      expect(json(await reader.callTool({ name: "get_usage", arguments: { accessId } }))).toEqual({ count: 0, consumers: [] });
      const missing = await reader.callTool({ name: "get_usage", arguments: { dataProductId: "nope" } });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/^404: /);
      const both = await reader.callTool({ name: "get_usage", arguments: { dataProductId: "orders", accessId } });
      expect(both.isError).toBe(true);
      expect(text(both)).toMatch(/^400: /);
      expect((await reader.callTool({ name: "get_usage", arguments: {} })).isError).toBe(true);
    } finally {
      await reader.close();
    }
    // Another organization's key reads nothing of this one, through the API or the tool.
    const other = await t.createOrganization("elsewhere");
    expect((await t.api("GET", "/api/dataproducts/orders/usage", undefined, { key: other.key })).status).toBe(404);
    const outsider = await connect(t.url, other.key);
    try {
      expect(text(await outsider.callTool({ name: "get_usage", arguments: { dataProductId: "orders" } }))).toMatch(/^404: /);
    } finally {
      await outsider.close();
    }
  });

  it("refuses a request without a valid key, and answers GET with 405", async () => {
    await expect(connect(t.url, "stw_wrong")).rejects.toThrow();
    const res = await request(t.url, "POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(401);
    expect((await request(t.url, "GET", "/mcp", undefined, { key: analyticsKey })).status).toBe(405);
  });
});
