import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import type { TestServer } from "../../../test/helpers/server.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

/** A request whose path is sent exactly as given: fetch would resolve `..` segments before sending. */
function rawPut(t: TestServer, path: string, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(t.url);
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: "PUT", headers: { "x-api-key": t.key, "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function tagTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`tags (%s)${check.label}`, (kind) => {
    const t = suiteServer(kind, { teams: { governance: "Governance" } });

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

    it("refuses look-alike ids and path steps with 422 naming the rule, and stores ids in NFC", async () => {
      const before = (await t.api("GET", "/api/tags")).body;
      const cases: Array<[string, string]> = [
        [`/api/tags/${encodeURIComponent("p\u0456i")}/high`, "a segment of a tag id does not mix letters of Latin, Cyrillic and Greek"],
        [`/api/tags/${encodeURIComponent("\uFF30II")}`, "tag ids use no compatibility characters"],
        ["/api/tags/pii/../high", "no segment of a tag id is `.` or `..`"],
        ["/api/tags/pii/%2E%2E/high", "no segment of a tag id is `.` or `..`"],
        ["/api/tags/./pii", "no segment of a tag id is `.` or `..`"],
      ];
      for (const [path, rule] of cases) {
        const res = await rawPut(t, path, { owner: "governance" });
        expect(res.status, path).toBe(422);
        expect(res.body.violations, path).toContainEqual({ field: "id", message: expect.stringContaining(`rule: ${rule}`) });
      }
      expect((await t.api("GET", "/api/tags")).body).toEqual(before);

      const decomposed = await t.api("PUT", `/api/tags/${encodeURIComponent("Donne\u0301es")}`, { owner: "governance" });
      expect(decomposed.status, decomposed.text).toBe(200);
      expect(decomposed.body.id).toBe("Données");
      expect((await t.api("GET", `/api/tags/${encodeURIComponent("Données")}`)).body.id).toBe("Données");
      expect((await t.api("GET", `/api/tags/${encodeURIComponent("Donne\u0301es")}`)).body.id).toBe("Données");
      expect((await t.api("GET", "/api/tags")).body.filter((x: any) => x.id.startsWith("Donn"))).toHaveLength(1);
    });

    it("assigns only tags that exist, and keeps a tag in use from deletion (409) until its assignments are removed", async () => {
      await t.api("PUT", "/api/assets/orders", { info: { name: "orders", owner: "governance" } });
      const missing = await t.api("PUT", "/api/assets/orders/assigned-tags/no-such-tag");
      expect(missing.status).toBe(422);
      expect(missing.body.detail).toContain("rule: an asset's assigned tag must exist");
      expect((await t.api("GET", "/api/assets/orders/assigned-tags")).body).toEqual([]);

      expect((await t.api("PUT", "/api/tags/pii/high", { owner: "governance" })).status).toBe(200);
      expect((await t.api("PUT", "/api/assets/orders/assigned-tags/pii/high")).body).toEqual(["pii/high"]);
      // The NFC form of an id is the tag: a decomposed accent assigns the stored tag.
      expect((await t.api("PUT", `/api/assets/orders/assigned-tags/${encodeURIComponent("Donne\u0301es")}`)).body).toEqual(["pii/high", "Données"]);
      const eventsBefore = ((await t.api("GET", "/api/events")).body as any[]).length;
      const refused = await t.api("DELETE", "/api/tags/pii/high");
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain("'orders'");
      expect(refused.body.detail).toContain("rule: a tag in use is not deleted");
      expect((await t.api("GET", "/api/tags/pii/high")).status).toBe(200);
      expect(((await t.api("GET", "/api/events")).body as any[]).length).toBe(eventsBefore);

      // A tag only mentioned elsewhere in an asset (not assigned) does not hold it.
      await t.api("PUT", "/api/tags/pii", { owner: "governance" });
      await t.api("PUT", "/api/assets/mentions", { info: { name: "mentions", owner: "governance", description: "\"pii\"" }, tags: ["pii"] });
      expect((await t.api("DELETE", "/api/tags/pii")).status).toBe(204);

      expect((await t.api("DELETE", "/api/assets/orders/assigned-tags/pii/high")).body).toEqual(["Données"]);
      expect((await t.api("DELETE", "/api/tags/pii/high")).status).toBe(204);
      // Removing an assignment of a tag that no longer exists still works.
      expect((await t.api("DELETE", "/api/assets/orders/assigned-tags/pii/high")).status).toBe(200);
    });
  });
}
