import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { createTeamKey, suiteServer } from "../../../test/helpers/suite-server.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function sourceSystemTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`source systems and definitions (%s)${check.label}`, (kind) => {
    let teamKey: string;
    const t = suiteServer(kind, { teams: { fulfillment: "Fulfillment", checkout: "Checkout" }, setup: async (t) => { teamKey = await createTeamKey(t, "fulfillment", "f"); } });
    const kinds = async (prefix: string) =>
      ((await t.api("GET", "/api/events")).body as any[]).map((e) => e.type.split(".").pop() as string).filter((k) => k.startsWith(prefix));

    it("upserts, lists, reads and deletes source systems in the reference shape", async () => {
      const stock = { name: "Stock Service", owner: "fulfillment", description: "Stock levels", tags: ["dev"], links: { home: "https://x" }, custom: { slack: "#stock" } };
      const put = await t.api("PUT", "/api/sourcesystems/stock-service", stock, { key: teamKey });
      expect(put.status).toBe(200);
      expect(put.headers.get("location-html")).toBe("http://steward.test/sourcesystems/stock-service");
      const read = await t.api("GET", "/api/sourcesystems/stock-service");
      expect(read.body).toEqual({ id: "stock-service", ...stock });
      check.answer("GET", "/api/sourcesystems/{id}", 200, read.body);
      check.answer("GET", "/api/sourcesystems", 200, (await t.api("GET", "/api/sourcesystems")).body);
      expect((await t.api("PUT", "/api/sourcesystems/stock-service", { ...stock, owner: "checkout" }, { key: teamKey })).status).toBe(403);
      expect((await t.api("PUT", "/api/sourcesystems/crm", { name: "CRM", owner: "checkout" }, { key: teamKey })).status).toBe(403);
      const bad = await t.api("PUT", "/api/sourcesystems/crm", { owner: "nobody", custom: { n: 1 } });
      expect(bad.status).toBe(422);
      expect(bad.body.violations.map((v: any) => v.field).sort()).toEqual(["custom.n", "name"]);
      expect((await t.api("PUT", "/api/sourcesystems/stock-service", { ...stock, description: "Stock" })).status).toBe(200);
      expect((await t.api("DELETE", "/api/sourcesystems/stock-service")).status).toBe(204);
      expect(await kinds("SourceSystem")).toEqual(["SourceSystemCreatedEvent", "SourceSystemUpdatedEvent", "SourceSystemDeletedEvent"]);
    });

    it("upserts, lists, reads and deletes definitions in the reference shape", async () => {
      const name = { owner: "checkout", title: "Customer Name", type: "string", minLength: 1, maxLength: 100, pii: true, classification: "sensitive", tags: ["customer"] };
      expect((await t.api("PUT", "/api/definitions/customer_name", name)).status).toBe(200);
      const read = await t.api("GET", "/api/definitions/customer_name");
      expect(read.body).toEqual({ id: "customer_name", ...name });
      check.answer("GET", "/api/definitions/{id}", 200, read.body);
      check.answer("GET", "/api/definitions", 200, (await t.api("GET", "/api/definitions")).body);
      expect((await t.api("GET", "/api/definitions?q=customer")).body).toHaveLength(1);
      expect((await t.api("PUT", "/api/definitions/customer_name", name, { key: teamKey })).status).toBe(403);
      const bad = await t.api("PUT", "/api/definitions/x", { title: "X", minLength: "one", pii: "yes" });
      expect(bad.status).toBe(422);
      expect(bad.body.violations.map((v: any) => v.field).sort()).toEqual(["minLength", "owner", "pii"]);
      const other = await t.createOrganization(`defs-${kind}`);
      expect((await t.api("GET", "/api/definitions/customer_name", undefined, { key: other.key })).status).toBe(404);
      expect((await t.api("DELETE", "/api/definitions/customer_name")).status).toBe(204);
      expect(await kinds("Definition")).toEqual(["DefinitionCreatedEvent", "DefinitionDeletedEvent"]);
    });

    it("keeps a team that owns catalog resources from being deleted", async () => {
      await t.api("PUT", "/api/definitions/order_id", { owner: "checkout" });
      expect((await t.api("DELETE", "/api/teams/checkout")).status).toBe(409);
    });
  });
}
