import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseKind } from "../helpers/databases.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";

/** SCIM lists sorted, answers cut to the attributes asked for, and searches by POST (RFC 7644 §3.4.2.3, §3.4.3, §3.9). */

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const SEARCH = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

describe.each<DatabaseKind>(["sqlite", "postgres"])("SCIM sorting, attributes and search (%s)", (kind) => {
  let t: TestServer;
  const ids: Record<string, string> = {};
  const scim = (method: string, path: string, body?: unknown) =>
    request(t.url, method, `/api/scim/v2${path}`, body, { headers: { authorization: `Bearer ${t.key}` }, contentType: "application/scim+json" });
  /** POST …/{type}/.search with a SearchRequest. */
  const search = (type: string, body: unknown) => scim("POST", `/${type}/.search`, body);

  beforeAll(async () => {
    t = await startTestServer(kind);
    const people = [
      { userName: "carol@example.com", name: { givenName: "Carol", familyName: "Zeta" }, emails: [{ value: "carol@example.com", primary: true }] },
      { userName: "Alice@example.com", name: { givenName: "alice", familyName: "Young" }, emails: [{ value: "x@example.com" }, { value: "alice@example.com", primary: true }] },
      { userName: "bob@example.com", name: { givenName: "Bob" } },
    ];
    for (const person of people) ids[person.userName] = (await scim("POST", "/Users", { schemas: [USER], active: true, ...person })).body.id;
    await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Readers", members: [{ value: ids["bob@example.com"] }] });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it("sorts by an attribute, without case, either way, with missing values last", async () => {
    const names = async (query: string) => ((await scim("GET", `/Users?${query}`)).body.Resources as Array<{ userName: string }>).map((u) => u.userName);
    expect(await names("sortBy=userName")).toEqual(["Alice@example.com", "bob@example.com", "carol@example.com"]);
    expect(await names("sortBy=userName&sortOrder=descending")).toEqual(["carol@example.com", "bob@example.com", "Alice@example.com"]);
    expect(await names("sortBy=name.familyName")).toEqual(["Alice@example.com", "carol@example.com", "bob@example.com"]);
    expect(await names("sortBy=name.familyName&sortOrder=descending")).toEqual(["carol@example.com", "Alice@example.com", "bob@example.com"]);
    // A multi-valued attribute sorts by its primary value.
    expect(await names("sortBy=emails")).toEqual(["Alice@example.com", "carol@example.com", "bob@example.com"]);
    expect(await names(`sortBy=${encodeURIComponent(`${USER}:name.givenName`)}&count=2`)).toEqual(["Alice@example.com", "bob@example.com"]);
    const bad = await scim("GET", "/Users?sortBy=userName&sortOrder=sideways");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: "400", scimType: "invalidValue" });
    expect((await scim("GET", "/ServiceProviderConfig")).body.sort).toEqual({ supported: true });
  });

  it("answers only the attributes asked for, or all but the excluded ones; id and schemas always", async () => {
    const id = ids["carol@example.com"];
    const only = await scim("GET", `/Users/${id}?attributes=userName,name.givenName`);
    expect(only.status).toBe(200);
    expect(only.body).toEqual({ schemas: [USER], id, userName: "carol@example.com", name: { givenName: "Carol" } });
    expect(only.headers.get("etag")).toBe('W/"1"');
    const emails = await scim("GET", `/Users/${id}?attributes=${encodeURIComponent(`${USER}:emails.value`)}`);
    expect(emails.body).toEqual({ schemas: [USER], id, emails: [{ value: "carol@example.com" }] });
    const without = await scim("GET", `/Users/${id}?excludedAttributes=groups,meta,name,id`);
    expect(without.body.id).toBe(id);
    expect(without.body).not.toHaveProperty("groups");
    expect(without.body).not.toHaveProperty("meta");
    expect(without.body).not.toHaveProperty("name");
    expect(without.body.userName).toBe("carol@example.com");
    const list = await scim("GET", `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "readers"')}`);
    expect(list.body.Resources).toEqual([{ schemas: [GROUP], id: expect.any(String), displayName: "Readers", meta: expect.any(Object) }]);
    // A write answers with the attributes asked for too.
    const patched = await scim("PATCH", `/Users/${id}?attributes=active`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", path: "displayName", value: "Carol Z" }],
    });
    expect(patched.body).toEqual({ schemas: [USER], id, active: true });
  });

  it("searches by POST with a SearchRequest, per resource type and across both", async () => {
    const users = await search("Users", {
      schemas: [SEARCH],
      filter: 'userName sw "a" or userName sw "b"',
      sortBy: "userName",
      sortOrder: "descending",
      attributes: ["userName"],
      startIndex: 1,
      count: 10,
    });
    expect(users.status).toBe(200);
    expect(users.body).toEqual({
      schemas: [LIST],
      totalResults: 2,
      startIndex: 1,
      itemsPerPage: 2,
      Resources: [
        { schemas: [USER], id: ids["bob@example.com"], userName: "bob@example.com" },
        { schemas: [USER], id: ids["Alice@example.com"], userName: "Alice@example.com" },
      ],
    });
    const groups = await search("Groups", { schemas: [SEARCH], excludedAttributes: ["members", "meta"] });
    expect(groups.body.Resources).toEqual([{ schemas: [GROUP], id: expect.any(String), displayName: "Readers" }]);
    const both = await scim("POST", "/.search", { schemas: [SEARCH], filter: 'meta.resourceType eq "Group" or userName eq "bob@example.com"', attributes: ["id"] });
    expect(both.body.totalResults).toBe(2);
    expect(both.body.Resources.map((r: { schemas: string[] }) => r.schemas[0]).sort()).toEqual([GROUP, USER].sort());
    const wrong = await search("Users", { schemas: ["urn:nothing"] });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ scimType: "invalidSyntax" });
    const badCount = await search("Users", { schemas: [SEARCH], count: -1 });
    expect(badCount.body).toMatchObject({ status: "400", scimType: "invalidValue" });
  });
});
