import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

describe.each(DATABASES)("teams (%s)", (kind) => {
  const t = suiteServer(kind);

  const kinds = async () => ((await t.api("GET", "/api/events")).body as any[]).map((e) => `${e.data.id}:${e.type.split(".").pop()}`);

  it("upserts with PUT: 200 on create and on update, location-html, unknown members kept", async () => {
    const team = {
      name: "Fulfillment",
      type: "Team",
      description: "Ships orders",
      members: [{ emailAddress: "ada@example.com", role: "owner", since: 2021 }],
      tags: ["logistics"],
      links: { wiki: "https://wiki.example.com/fulfillment" },
      custom: { costCenter: "CC-12", nested: { deep: [1, { x: true }] } },
      somethingNew: { kept: "as sent" },
    };
    const created = await t.api("PUT", "/api/teams/fulfillment", team);
    expect(created.status).toBe(200);
    expect(created.headers.get("location-html")).toBe("http://steward.test/teams/fulfillment");
    expect(created.body).toEqual({ id: "fulfillment", ...team });

    const read = await t.api("GET", "/api/teams/fulfillment");
    expect(read.body).toEqual({ id: "fulfillment", ...team });

    const updated = await t.api("PUT", "/api/teams/fulfillment", { ...team, id: "fulfillment", name: "Fulfilment" });
    expect(updated.status).toBe(200);
    expect(updated.body.name).toBe("Fulfilment");
    expect(await kinds()).toEqual(["fulfillment:TeamCreatedEvent", "fulfillment:TeamUpdatedEvent"]);
  });

  it("writes nothing and emits nothing for a PUT that changes nothing", async () => {
    const before = (await kinds()).length;
    const current = (await t.api("GET", "/api/teams/fulfillment")).body;
    expect((await t.api("PUT", "/api/teams/fulfillment", current)).status).toBe(200);
    expect((await kinds()).length).toBe(before);
  });

  it("accepts ids of up to 256 characters with any character but a slash", async () => {
    const id = "Team ü.#" + "x".repeat(248);
    const res = await t.api("PUT", `/api/teams/${encodeURIComponent(id)}`, { name: "long" });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    expect((await t.api("GET", `/api/teams/${encodeURIComponent(id)}`)).body.name).toBe("long");
    expect((await t.api("PUT", `/api/teams/${"y".repeat(257)}`, { name: "too long" })).status).toBe(400);
    expect((await t.api("PUT", `/api/teams/a%2Fb`, { name: "slash" })).status).toBe(400);
    expect((await t.api("DELETE", `/api/teams/${encodeURIComponent(id)}`)).status).toBe(204);
  });

  it("rejects a body id that differs from the path id", async () => {
    const res = await t.api("PUT", "/api/teams/a", { id: "b", name: "A" });
    expect(res.status).toBe(422);
    expect(res.body.violations).toEqual([{ field: "id", message: expect.any(String) }]);
    expect((await t.api("GET", "/api/teams/a")).status).toBe(404);
  });

  it("validates the team and names every problem", async () => {
    const res = await t.api("PUT", "/api/teams/bad", { members: [{ emailAddress: "not-an-email" }, {}], tags: "x" });
    expect(res.status).toBe(422);
    const fields = res.body.violations.map((v: any) => v.field).sort();
    expect(fields).toEqual(["members[0].emailAddress", "members[1].emailAddress", "name", "tags"]);
  });

  it("lists in creation order with paging and a next link", async () => {
    for (let i = 0; i < 5; i++) await t.api("PUT", `/api/teams/page-${i}`, { name: `Page ${i}` });
    const all = (await t.api("GET", "/api/teams")).body.map((x: any) => x.id);
    expect(all).toEqual(["fulfillment", "page-0", "page-1", "page-2", "page-3", "page-4"]);

    const first = await t.api("GET", "/api/teams?pageSize=4");
    expect(first.body.map((x: any) => x.id)).toEqual(all.slice(0, 4));
    expect(first.headers.get("link")).toBe('</api/teams?pageSize=4&p=1>; rel="next"');
    const second = await t.api("GET", "/api/teams?pageSize=4&p=1");
    expect(second.body.map((x: any) => x.id)).toEqual(all.slice(4));
    expect(second.headers.get("link")).toBeNull();
    expect((await t.api("GET", "/api/teams?p=9")).body).toEqual([]);
    expect((await t.api("GET", "/api/teams?q=PAGE 3")).body.map((x: any) => x.id)).toEqual(["page-3"]);
    expect((await t.api("GET", "/api/teams?q=%25")).body).toEqual([]);
    expect((await t.api("GET", "/api/teams?pageSize=10000")).body.map((x: any) => x.id)).toEqual(all);
    expect((await t.api("GET", "/api/teams?pageSize=1001")).status).toBe(200);

    for (const bad of ["p=-1", "p=1.5", "p=abc", "p=", "p=%20", "p=1e3", "p=0x10", "p=Infinity", "p=99999999999999999", "pageSize=0", "pageSize=10001", "pageSize=+5"]) {
      const res = await t.api("GET", `/api/teams?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.violations[0].field).toBe(bad.split("=")[0]);
    }
  });

  it("deletes with 204 and a TeamDeletedEvent, then answers 404", async () => {
    expect((await t.api("DELETE", "/api/teams/page-0")).status).toBe(204);
    expect((await t.api("GET", "/api/teams/page-0")).status).toBe(404);
    expect((await t.api("DELETE", "/api/teams/page-0")).status).toBe(404);
    expect((await kinds()).at(-1)).toBe("page-0:TeamDeletedEvent");
  });

  it("refuses to delete a team that still has API keys", async () => {
    await t.api("POST", "/api/api-keys", { displayName: "k", scope: "team", teamId: "page-1" });
    const res = await t.api("DELETE", "/api/teams/page-1");
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/API key/);
    expect((await t.api("GET", "/api/teams/page-1")).status).toBe(200);
  });

  it("gives concurrent creators of one id one creation and one update", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => t.api("PUT", "/api/teams/racy", { name: `Racy ${i}` })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const events = (await kinds()).filter((k) => k.startsWith("racy:"));
    expect(events.filter((k) => k.endsWith("TeamCreatedEvent"))).toHaveLength(1);
  });

  it("filters by a direct member's email address, ignoring letter case", async () => {
    await t.api("PUT", "/api/teams/mail-a", { name: "Mail A", members: [{ emailAddress: "Grace.Hopper@Example.com" }, { emailAddress: "x@example.com" }] });
    await t.api("PUT", "/api/teams/mail-b", { name: "Mail B", members: [{ emailAddress: "grace.hopper@example.com", role: "owner" }] });
    await t.api("PUT", "/api/teams/mail-c", { name: "Mail C", description: "grace.hopper@example.com is only mentioned here" });
    await t.api("PUT", "/api/teams/mail-d", { name: "Mail D", members: [{ emailAddress: "grace.hopper@example.com.evil" }] });
    const ids = async (query: string) => (await t.api("GET", `/api/teams?${query}`)).body.map((x: any) => x.id);

    expect(await ids("email=GRACE.HOPPER%40example.COM")).toEqual(["mail-a", "mail-b"]);
    expect(await ids("email=grace.hopper%40example.com&pageSize=1&p=1")).toEqual(["mail-b"]);
    expect(await ids("email=nobody%40example.com")).toEqual([]);
    // LIKE wildcards and JSON-looking text are matched literally, never as patterns.
    expect(await ids("email=%25")).toEqual([]);
    expect(await ids("email=grace_hopper%40example.com")).toEqual([]);
    expect((await t.api("GET", `/api/teams?email=${"a".repeat(321)}`)).status).toBe(400);
  });
});
