import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { createTeamKey, suiteServer } from "../../../test/helpers/suite-server.js";

/** Policies, classification schemes and certifications: the reference paths and shapes, events, scopes. */
describe.each(DATABASES)("governance resources (%s)", (kind) => {
  let teamKey = "";
  const t = suiteServer(kind, { teams: { sales: "Sales" }, setup: async (t) => { teamKey = await createTeamKey(t, "sales", "sales"); } });

  const kinds = async (word: string) =>
    ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.type.includes(word)).map((e) => `${e.subject}:${e.type.split(".").pop()}`);

  it("keeps policies with their prose and rule, refuses a rule that does not compile at its position, and tells of each change", async () => {
    const body = { name: "Data quality", status: "Accepted", content: "Every product has **quality checks**.", rule: { condition: "has(contract.quality)", effect: "warn", gates: ["contract.publish"] } };
    const put = await t.api("PUT", "/api/policies/GLOBAL-1", body);
    expect(put.status, put.text).toBe(200);
    expect(put.headers.get("etag")).toBeTruthy();
    expect((await t.api("GET", "/api/policies/GLOBAL-1")).body).toEqual({ ...body, id: "GLOBAL-1" });
    expect((await t.api("PUT", "/api/policies/GLOBAL-2", { name: "Owners", content: "x" })).status).toBe(200);
    expect((await t.api("GET", "/api/policies")).body.map((p: any) => p.id)).toEqual(["GLOBAL-1", "GLOBAL-2"]);

    const broken = await t.api("PUT", "/api/policies/GLOBAL-3", { name: "Broken", rule: { condition: "contract.quality ==", effect: "deny", gates: ["contract.publish"] } });
    expect(broken.status).toBe(422);
    expect(broken.body.violations).toEqual([{ field: "rule.condition", message: expect.stringMatching(/^line 1, column \d+: syntax error/) }]);
    const unknown = await t.api("PUT", "/api/policies/GLOBAL-3", { name: "Unknown", rule: { condition: "access.id == 'x'", effect: "deny", gates: ["contract.publish"] } });
    expect(unknown.body.violations[0].message).toContain("undeclared reference to 'access'");
    const misplaced = await t.api("PUT", "/api/policies/GLOBAL-3", { name: "Held", rule: { condition: "true", effect: "require-approvals", gates: ["contract.publish"] } });
    expect(misplaced.body.violations.map((v: any) => v.field)).toEqual(["rule.approvals", "rule.gates"]);
    expect((await t.api("PUT", "/api/policies/GLOBAL-3", { name: "Bad status", status: "Live" })).status).toBe(422);
    // Deep nesting would run the parser to the end of the stack: refused before parsing.
    const deep = await t.api("PUT", "/api/policies/GLOBAL-3", { name: "Deep", rule: { condition: `${"(".repeat(1500)}true${")".repeat(1500)}`, effect: "deny", gates: ["contract.publish"] } });
    expect(deep.status).toBe(422);
    expect(deep.body.violations).toEqual([{ field: "rule.condition", message: "line 1, column 33: brackets nest deeper than 32 levels" }]);
    expect((await t.api("GET", "/api/policies/GLOBAL-3")).status).toBe(404);

    // Governance belongs to the organization: a team key reads, and changes nothing.
    expect((await t.api("PUT", "/api/policies/GLOBAL-2", { name: "Mine" }, { key: teamKey })).status).toBe(403);
    expect((await t.api("GET", "/api/policies/GLOBAL-2", undefined, { key: teamKey })).status).toBe(200);
    expect((await t.api("DELETE", "/api/policies/GLOBAL-2")).status).toBe(204);
    expect(await kinds("Policy")).toEqual(["GLOBAL-1:PolicyCreatedEvent", "GLOBAL-2:PolicyCreatedEvent", "GLOBAL-2:PolicyDeletedEvent"]);
  });

  it("keeps classification schemes by their externalId, with one organization default", async () => {
    const scheme = {
      externalId: "classification",
      name: "Classification",
      customProperty: "classification",
      classifications: [
        { externalId: "public", name: "Public", level: 1 },
        { externalId: "sensitive", name: "Sensitive", level: 4, colorScheme: "red" },
      ],
    };
    expect((await t.api("PUT", "/api/classification-schemes/classification", scheme)).status).toBe(200);
    const read = await t.api("GET", "/api/classification-schemes/classification");
    expect(read.body).toMatchObject(scheme);
    // The path names the scheme when the body does not.
    expect((await t.api("PUT", "/api/classification-schemes/retention", { name: "Retention" })).body.externalId).toBe("retention");
    const wrong = await t.api("PUT", "/api/classification-schemes/other", { ...scheme, externalId: "x", customProperty: "classification", classifications: [scheme.classifications[0], scheme.classifications[0]] });
    expect(wrong.status).toBe(422);
    expect(wrong.body.violations.map((v: any) => v.field).sort()).toEqual(["classifications[1].externalId", "externalId"]);
    expect((await t.api("GET", "/api/classification-schemes")).body.map((s: any) => s.externalId)).toEqual(["classification", "retention"]);
    expect((await t.api("DELETE", "/api/classification-schemes/retention", undefined, { key: teamKey })).status).toBe(403);
    expect((await t.api("DELETE", "/api/classification-schemes/retention")).status).toBe(204);
    expect(await kinds("ClassificationScheme")).toEqual([
      "classification:ClassificationSchemeCreatedEvent",
      "retention:ClassificationSchemeCreatedEvent",
      "retention:ClassificationSchemeDeletedEvent",
    ]);
  });

  it("given a default scheme, when another scheme is written as the default, then it becomes the default and the old one stops being it, in one change with an event each", async () => {
    const before = (await t.api("GET", "/api/events")).body.length;
    const sensitivity = { name: "Sensitivity", customProperty: "classification", classifications: [{ externalId: "open", name: "Open" }] };
    const put = await t.api("PUT", "/api/classification-schemes/sensitivity", sensitivity);
    expect(put.status, put.text).toBe(200);
    expect(put.body.customProperty).toBe("classification");
    const old = (await t.api("GET", "/api/classification-schemes/classification")).body;
    // The former default keeps its tiers and now maps to classification.<externalId>.
    expect(old.customProperty).toBeUndefined();
    expect(old.classifications).toHaveLength(2);
    const events = ((await t.api("GET", "/api/events")).body as any[]).slice(before).map((e) => [e.subject, e.type.split(".").pop(), e.time]);
    expect(events.map(([subject, type]) => [subject, type])).toEqual([
      ["sensitivity", "ClassificationSchemeCreatedEvent"],
      ["classification", "ClassificationSchemeUpdatedEvent"],
    ]);
    const defaults = ((await t.api("GET", "/api/classification-schemes")).body as any[]).filter((s) => s.customProperty === "classification");
    expect(defaults.map((s) => s.externalId)).toEqual(["sensitivity"]);
    // Writing the default again changes nothing else; a refused write demotes nothing.
    expect((await t.api("PUT", "/api/classification-schemes/sensitivity", sensitivity)).status).toBe(200);
    expect((await t.api("PUT", "/api/classification-schemes/classification", { ...old, customProperty: "classification" }, { key: teamKey })).status).toBe(403);
    expect((await t.api("GET", "/api/classification-schemes/sensitivity")).body.customProperty).toBe("classification");
    expect((await t.api("GET", "/api/events")).body.length).toBe(before + 2);
  });

  it("keeps certifications, which need a name and a tag", async () => {
    const gold = { id: "6a0b8f38-4b1c-4f57-9a39-4f0a4d1d2a11", name: "Gold", rank: 1, description: "Gold certified", criteria: "All checks pass", tag: "certification-gold", icon: "star", restricted: true };
    expect((await t.api("PUT", `/api/certifications/${gold.id}`, gold)).status).toBe(200);
    expect((await t.api("GET", `/api/certifications/${gold.id}`)).body).toEqual(gold);
    expect((await t.api("PUT", "/api/certifications/silver", { name: "Silver" })).status).toBe(422);
    expect((await t.api("PUT", "/api/certifications/silver", { name: "Silver", tag: "certification-silver" }, { key: teamKey })).status).toBe(403);
    expect(await kinds("Certification")).toEqual([`${gold.id}:CertificationCreatedEvent`]);
  });
});
