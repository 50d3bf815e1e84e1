import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function tagTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`tags (%s)${check.label}`, (kind) => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(kind);
      await t.api("PUT", "/api/teams/governance", { name: "Governance" });
    });
    afterAll(() => t?.close());

    it("takes hierarchical ids with a slash in the path, and the owner in either place", async () => {
      const put = await t.api("PUT", "/api/tags/Governance/PII", { info: { owner: "governance", description: "Personal data" }, properties: { level: "3" } });
      expect(put.status).toBe(200);
      expect(put.headers.get("location-html")).toBe("http://steward.test/tags/Governance%2FPII");
      const read = await t.api("GET", "/api/tags/Governance/PII");
      expect(read.body).toEqual({ id: "Governance/PII", owner: "governance", info: { owner: "governance", description: "Personal data" }, properties: { level: "3" } });
      check.answer("GET", "/api/tags/{id}", 200, read.body);
      // An encoded slash names the same tag.
      expect((await t.api("GET", "/api/tags/Governance%2FPII")).body.id).toBe("Governance/PII");
      expect((await t.api("PUT", "/api/tags/finance", { owner: "governance" })).status).toBe(200);
      const list = await t.api("GET", "/api/tags?owner=governance");
      expect(list.body.map((x: any) => x.id)).toEqual(["Governance/PII", "finance"]);
      // The reference product takes the owner team's name here; its id works as well.
      expect((await t.api("GET", "/api/tags?owner=Governance")).body).toEqual(list.body);
      expect((await t.api("GET", "/api/tags?owner=governanc")).body).toEqual([]);
      check.answer("GET", "/api/tags", 200, list.body);
    });

    it("refuses a tag without owner, with an unknown owner, or differing from another only in case", async () => {
      const cases: Array<[string, unknown, string]> = [
        ["/api/tags/a", {}, "owner"],
        ["/api/tags/a", { owner: "nobody" }, "owner"],
        ["/api/tags/a", { owner: "governance", info: { owner: "other" } }, "info.owner"],
        ["/api/tags/governance/pii", { owner: "governance" }, "id"],
      ];
      for (const [path, body, field] of cases) {
        const res = await t.api("PUT", path, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.violations.map((v: any) => v.field)).toContain(field);
      }
      for (const bad of ["/api/tags//a", "/api/tags/a//", "/api/tags/a//b", `/api/tags/${"x".repeat(257)}`]) {
        expect((await t.api("PUT", bad, { owner: "governance" })).status, bad).toBeGreaterThanOrEqual(400);
      }
      expect((await t.api("GET", "/api/tags")).body.map((x: any) => x.id)).toEqual(["Governance/PII", "finance"]);
    });

    it("emits Tag events and deletes with 204", async () => {
      await t.api("PUT", "/api/tags/finance", { owner: "governance", info: { description: "Money" } });
      expect((await t.api("DELETE", "/api/tags/Governance/PII")).status).toBe(204);
      expect((await t.api("GET", "/api/tags/Governance/PII")).status).toBe(404);
      const kinds = ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.type.includes("Tag")).map((e) => `${e.subject}:${e.type.split(".").pop()}`);
      expect(kinds).toEqual(["Governance/PII:TagCreatedEvent", "finance:TagCreatedEvent", "finance:TagUpdatedEvent", "Governance/PII:TagDeletedEvent"]);
    });
  });
}
