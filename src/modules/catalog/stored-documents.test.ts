import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

/** A document whose members are in no order a response schema would give them. */
const SENT = '{"zeta":{"y":1,"x":[3,2,1]},"tags":["b","a"],"name":"Sales","custom":{"b":"1","a":"2"},"description":"Sells"}';

describe.each(DATABASES)("catalog documents are answered as stored (%s)", (kind) => {
  const t = suiteServer(kind);

  it("answers PUT, GET and the list with the members in the order they were sent", async () => {
    // The path's id is added after the members sent, as the document is stored.
    const stored = JSON.stringify({ ...JSON.parse(SENT), id: "sales" });
    const put = await t.api("PUT", "/api/teams/sales", undefined, { raw: SENT, contentType: "application/json" });
    expect(put.status).toBe(200);
    expect(put.text).toBe(stored);
    const get = await t.api("GET", "/api/teams/sales");
    expect(get.text).toBe(stored);
    expect(get.headers.get("etag")).toBe(put.headers.get("etag"));
    const list = await t.api("GET", "/api/teams");
    expect(list.text).toBe(`[${stored}]`);
    for (const res of [put, get, list]) expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("answers GETs sent at once each with its own document and ETag, or 404", async () => {
    // On PostgreSQL these reads reach the database together (DocumentReads).
    const ids = ["at-once-1", "at-once-2", "at-once-3"];
    const puts = await Promise.all(ids.map((id) => t.api("PUT", `/api/teams/${id}`, { name: id })));
    const gets = await Promise.all([...ids, "at-once-missing"].map((id) => t.api("GET", `/api/teams/${id}`)));
    expect(gets.map((res) => res.status)).toEqual([200, 200, 200, 404]);
    ids.forEach((id, i) => {
      expect(gets[i].body).toEqual({ name: id, id });
      expect(gets[i].headers.get("etag")).toBe(puts[i].headers.get("etag"));
    });
    expect(gets[3].headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });

  it("answers a PUT that changes nothing with the stored document and its ETag", async () => {
    const sent = JSON.stringify({ id: "ops", name: "Ops", members: [{ role: "owner", emailAddress: "a@example.com" }] });
    const first = await t.api("PUT", "/api/teams/ops", undefined, { raw: sent, contentType: "application/json" });
    // The same document with its members in another order is the same document: nothing changes.
    const reordered = JSON.stringify({ members: [{ emailAddress: "a@example.com", role: "owner" }], name: "Ops", id: "ops" });
    const events = (await t.api("GET", "/api/events")).body.length;
    const again = await t.api("PUT", "/api/teams/ops", undefined, { raw: reordered, contentType: "application/json" });
    expect(again.status).toBe(200);
    expect(again.text).toBe(sent);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect((await t.api("GET", "/api/events")).body.length).toBe(events);
  });

  it("still answers another representation when the query asks for one", async () => {
    // Stored in the Data Contract Specification, so that the converted answer differs from the stored one.
    const contract = { dataContractSpecification: "1.1.0", info: { title: "Leads", version: "1.0.0", owner: "sales" }, models: {} };
    expect((await t.api("PUT", "/api/datacontracts/c1", contract)).status).toBe(200);
    const asStored = await t.api("GET", "/api/datacontracts/c1");
    expect(asStored.body).toEqual({ ...contract, id: "c1" });
    const converted = await t.api("GET", "/api/datacontracts/c1?format=odcs");
    expect(converted.status).toBe(200);
    expect(converted.body).toMatchObject({ apiVersion: "v3.1.0", kind: "DataContract", id: "c1", version: "1.0.0" });
    expect(converted.body).not.toHaveProperty("dataContractSpecification");
    // The stored document's ETag: a conditional read of the converted answer is decided by the stored version.
    expect(converted.headers.get("etag")).toBe(asStored.headers.get("etag"));
  });
});
