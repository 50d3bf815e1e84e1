import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { etagOfJson } from "./document-service.js";

describe("An entity tag", () => {
  it("is the SHA-256 of the document's stored JSON, so a tag a client kept across an upgrade still matches", () => {
    // Computed apart: printf '{"name":"Bench"}' | openssl dgst -sha256 -binary | basenc --base64url
    expect(etagOfJson('{"name":"Bench"}')).toBe('"iyBLDxGT7G_cCrMdMIrEttXpdU1"');
  });
});

describe.each(DATABASES)("ETags and conditional requests on catalog documents (%s)", (kind) => {
  const t = suiteServer(kind);

  const events = async () => (await t.api("GET", "/api/events")).body.length;

  it("answers an ETag on GET and PUT that changes with the document", async () => {
    const put = await t.api("PUT", "/api/teams/ops", { name: "Ops" });
    const etag = put.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await t.api("GET", "/api/teams/ops")).headers.get("etag")).toBe(etag);
    const again = await t.api("PUT", "/api/teams/ops", { name: "Ops", description: "On call" });
    expect(again.headers.get("etag")).not.toBe(etag);
    const notModified = await t.api("GET", "/api/teams/ops", undefined, { headers: { "if-none-match": again.headers.get("etag")! } });
    expect(notModified.status).toBe(304);
  });

  it("refuses a PUT or DELETE whose If-Match names another version with 412, changing nothing", async () => {
    const first = (await t.api("PUT", "/api/teams/dev", { name: "Dev" })).headers.get("etag")!;
    const second = (await t.api("PUT", "/api/teams/dev", { name: "Developers" })).headers.get("etag")!;
    const before = await events();
    const stale = await t.api("PUT", "/api/teams/dev", { name: "Stale" }, { headers: { "if-match": first } });
    expect(stale.status).toBe(412);
    expect(stale.headers.get("content-type")).toMatch(/problem\+json/);
    expect((await t.api("GET", "/api/teams/dev")).body.name).toBe("Developers");
    expect((await t.api("DELETE", "/api/teams/dev", undefined, { headers: { "if-match": first } })).status).toBe(412);
    expect(await events()).toBe(before);

    const fresh = await t.api("PUT", "/api/teams/dev", { name: "Dev team" }, { headers: { "if-match": second } });
    expect(fresh.status).toBe(200);
    expect((await t.api("PUT", "/api/teams/absent", { name: "A" }, { headers: { "if-match": "*" } })).status).toBe(412);
    expect((await t.api("DELETE", "/api/teams/dev", undefined, { headers: { "if-match": `"x", ${fresh.headers.get("etag")}` } })).status).toBe(204);
  });

  it("creates only with If-None-Match: *", async () => {
    const created = await t.api("PUT", "/api/datacontracts/c1", { apiVersion: "v3.1.0", kind: "DataContract", version: "1", status: "draft", domain: "ops" }, { headers: { "if-none-match": "*" } });
    expect(created.status).toBe(200);
    const before = await events();
    const again = await t.api("PUT", "/api/datacontracts/c1", { apiVersion: "v3.1.0", kind: "DataContract", version: "2", status: "draft", domain: "ops" }, { headers: { "if-none-match": "*" } });
    expect(again.status).toBe(412);
    expect((await t.api("GET", "/api/datacontracts/c1")).body.version).toBe("1");
    expect(await events()).toBe(before);
  });
});
