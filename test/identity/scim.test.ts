import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/platform/config.js";
import { startServer, type RunningServer } from "../../src/server.js";
import type { DatabaseKind } from "../helpers/databases.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";

/**
 * SCIM 2.0 as identity providers speak it: the request sequences Okta and Microsoft Entra ID send
 * during provisioning (from their published provisioning flows), replayed request for request,
 * and what deprovisioning does to sessions, memberships and accesses.
 */

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
const PASSWORD = "a long enough password";

describe.each<DatabaseKind>(["sqlite", "postgres"])("SCIM 2.0 (%s)", (kind) => {
  let t: TestServer;
  let second: RunningServer;
  const scim = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(t.url, method, `/api/scim/v2${path}`, body, { headers: { authorization: `Bearer ${t.key}`, ...headers }, contentType: "application/scim+json" });

  beforeAll(async () => {
    t = await startTestServer(kind);
    // A second process over the same database: what one deprovisions, the other refuses at once.
    second = await startServer(loadConfig({}, { port: 0, host: "127.0.0.1", databaseUrl: t.database.url, bootstrap: false, logLevel: "silent", appUrl: "http://steward.test", passwordLog2Cost: 14 }), { logger: false });
    await t.api("PUT", "/api/settings/scim-mapping", { scimGroupMappings: [{ scimGroup: "Steward Admins", type: "organizationOwner" }] });
    await t.api("PUT", "/api/teams/sales", { name: "sales" });
    // An owner besides the provisioned people: the last owner is never lowered or removed.
    await t.server.services.people.addMember(t.server.services.database.db, t.organizationId, "root@example.com", "owner", PASSWORD);
    await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "auto", type: "postgres", autoApprove: true }] });
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  it("describes itself: ServiceProviderConfig, ResourceTypes, Schemas", async () => {
    const config = await scim("GET", "/ServiceProviderConfig");
    expect(config.status).toBe(200);
    expect(config.headers.get("content-type")).toMatch(/^application\/scim\+json/);
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true }, etag: { supported: true }, bulk: { supported: false } });
    expect((await scim("GET", "/ResourceTypes")).body.Resources.map((r: { id: string }) => r.id)).toEqual(["User", "Group"]);
    expect((await scim("GET", "/ResourceTypes/User")).body.endpoint).toBe("/Users");
    expect((await scim("GET", "/Schemas")).body.totalResults).toBe(2);
    expect((await scim("GET", `/Schemas/${USER}`)).body.attributes.map((a: { name: string }) => a.name)).toContain("userName");
    const missing = await scim("GET", "/Schemas/urn:nothing");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ schemas: [ERROR], status: "404" });
  });

  it("replays Okta: lookup, create, read, profile update, group push, deactivation", async () => {
    // 1. Is the user there? (Okta looks up by userName before creating.)
    const lookup = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "dana@example.com"')}&startIndex=1&count=100`);
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
    // 2. Create.
    const created = await scim("POST", "/Users", {
      schemas: [USER],
      userName: "dana@example.com",
      name: { givenName: "Dana", familyName: "Scully" },
      emails: [{ primary: true, value: "dana@example.com", type: "work" }],
      displayName: "Dana Scully",
      locale: "en-US",
      externalId: "00ujl29u0le5T6Aj10h7",
      groups: [],
      password: "ignored-1234",
      active: true,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.headers.get("location")).toBe(`http://steward.test/api/scim/v2/Users/${id}`);
    expect(created.headers.get("etag")).toBe('W/"1"');
    expect(created.body).toMatchObject({ schemas: [USER], userName: "dana@example.com", active: true, meta: { resourceType: "User", version: 'W/"1"' } });
    expect((await t.api("GET", "/api/members")).body.map((m: { email: string }) => m.email)).toContain("dana@example.com");
    // 3. Read back, and find by userName (another case).
    expect((await scim("GET", `/Users/${id}`)).body.name).toEqual({ givenName: "Dana", familyName: "Scully" });
    const found = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "Dana@Example.com" and active eq true')}`);
    expect(found.body.totalResults).toBe(1);
    // 4. Profile update: Okta replaces the whole user.
    const replaced = await scim("PUT", `/Users/${id}`, { ...created.body, name: { givenName: "Dana", familyName: "Mulder" } }, { "if-match": 'W/"1"' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.meta.version).toBe('W/"2"');
    const stale = await scim("PUT", `/Users/${id}`, created.body, { "if-match": 'W/"1"' });
    expect(stale.status).toBe(412);
    expect(stale.body.schemas).toEqual([ERROR]);
    // 5. Group push: create the group, add the member (she becomes an owner through the mapping), remove her again.
    const group = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Steward Admins", members: [] });
    expect(group.status).toBe(201);
    const add = await scim("PATCH", `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: id, display: "dana@example.com" }] }] });
    expect(add.status).toBe(200);
    expect(add.body.members.map((m: { value: string }) => m.value)).toEqual([id]);
    expect((await scim("GET", `/Users/${id}`)).body.groups).toMatchObject([{ value: group.body.id, display: "Steward Admins" }]);
    const roleOf = async (email: string) => ((await t.api("GET", "/api/members")).body as Array<{ email: string; role: string }>).find((m) => m.email === email)?.role;
    expect(await roleOf("dana@example.com")).toBe("owner");
    const remove = await scim("PATCH", `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${id}"]` }] });
    expect(remove.body.members).toEqual([]);
    expect(await roleOf("dana@example.com")).toBe("member");
    // 6. Deactivate.
    const off = await scim("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect(await roleOf("dana@example.com")).toBeUndefined();
    // Reactivating brings the membership back.
    await scim("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: true } }] });
    expect(await roleOf("dana@example.com")).toBe("member");
  });

  it("replays Microsoft Entra ID: probe, create, capitalized ops with text booleans, group membership by value", async () => {
    // Entra's connection test looks up a user that cannot exist.
    const probe = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "ff0d2d51-9c03-4bb4-8b0c-d4a2cf4b4d3f"')}`);
    expect(probe.body.totalResults).toBe(0);
    const created = await scim("POST", "/Users", {
      schemas: [USER, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "erin",
      userName: "erin@example.com",
      active: true,
      emails: [{ primary: true, type: "work", value: "erin@example.com" }],
      meta: { resourceType: "User" },
      name: { formatted: "Erin Example", familyName: "Example", givenName: "Erin" },
      roles: [],
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Sales" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body["urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"]).toEqual({ department: "Sales" });
    // Entra creates the same user again when it lost track: a uniqueness error, not a second user.
    const again = await scim("POST", "/Users", { schemas: [USER], userName: "ERIN@example.com", emails: [{ primary: true, value: "erin@example.com" }] });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ schemas: [ERROR], status: "409", scimType: "uniqueness" });

    const group = await scim("POST", "/Groups", { schemas: [GROUP], externalId: "8aa1a0c0", displayName: "Steward Admins", members: [] });
    const add = await scim("PATCH", `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: "Add", path: "members", value: [{ value: id }] }] });
    expect(add.status).toBe(200);
    const rename = await scim("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: "displayName", value: "Erin E." }, { op: "Add", path: "name.givenName", value: "Erin" }] });
    expect(rename.body.displayName).toBe("Erin E.");
    const removeMember = await scim("PATCH", `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: "Remove", path: "members", value: [{ value: id }] }] });
    expect(removeMember.status).toBe(200);
    expect(removeMember.body.members).toEqual([]);
    const disable = await scim("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "Replace", path: "active", value: "False" }] });
    expect(disable.status).toBe(200);
    expect(disable.body.active).toBe(false);
    const listed = await scim("GET", `/Users?filter=${encodeURIComponent('externalId eq "erin"')}`);
    expect(listed.body.Resources[0].active).toBe(false);
    expect((await scim("DELETE", `/Users/${id}`)).status).toBe(204);
    expect((await scim("GET", `/Users/${id}`)).status).toBe(404);
  });

  it("deprovisioning ends the person's sessions in every process and their accesses once, with events", async () => {
    const email = "fox@example.com";
    const created = await scim("POST", "/Users", { schemas: [USER], userName: email, active: true });
    // Fox also has a password (set by the operator) and is signed in.
    await t.server.services.people.addMember(t.server.services.database.db, t.organizationId, email, "member", PASSWORD);
    const signIn = await request(t.url, "POST", "/auth/sign-in", { email, password: PASSWORD });
    const cookie = /steward_session=[^;]+/.exec(signIn.headers.get("set-cookie")!)![0];
    expect((await request(t.url, "GET", "/api/teams", undefined, { headers: { cookie } })).status).toBe(200);
    expect((await request(second.url, "GET", "/api/teams", undefined, { headers: { cookie } })).status).toBe(200);
    const access = await t.api("PUT", "/api/access/fox-orders", { info: { purpose: "Reports" }, provider: { dataProductId: "orders", outputPortId: "auto" }, consumer: { userId: email } });
    expect(access.body.info).toMatchObject({ status: "approved", active: true });

    // Both processes deprovision at once (a retried request); the access ends once.
    const body = { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: false }] };
    const [a, b] = await Promise.all([
      scim("PATCH", `/Users/${created.body.id}`, body),
      request(second.url, "PATCH", `/api/scim/v2/Users/${created.body.id}`, body, { headers: { authorization: `Bearer ${t.key}` }, contentType: "application/scim+json" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 200]);
    expect((await request(t.url, "GET", "/api/teams", undefined, { headers: { cookie } })).status).toBe(401);
    expect((await request(second.url, "GET", "/api/teams", undefined, { headers: { cookie } })).status).toBe(401);
    const after = await t.api("GET", "/api/access/fox-orders");
    expect(after.body.info.active).toBe(false);
    const events = ((await t.api("GET", "/api/events")).body as Array<{ type: string; subject: string }>).filter((e) => e.subject === "fox-orders").map((e) => e.type.split(".").pop());
    expect(events.filter((e) => e === "AccessCanceledEvent")).toHaveLength(1);
    expect(events.filter((e) => e === "AccessDeactivatedEvent")).toHaveLength(1);
    // Deleting the user later changes nothing more.
    expect((await scim("DELETE", `/Users/${created.body.id}`)).status).toBe(204);
    const later = ((await t.api("GET", "/api/events")).body as Array<{ type: string; subject: string }>).filter((e) => e.subject === "fox-orders");
    expect(later).toHaveLength(events.length);
  });

  it("a mapped group lists its users in the team with the mapped role and its permissions, and drops only them when they leave", async () => {
    await t.api("PUT", "/api/teams/analytics", { name: "Analytics", members: [{ emailAddress: "hal@example.com", role: "owner" }] });
    await t.api("PUT", "/api/settings/scim-mapping", {
      scimGroupMappings: [
        { scimGroup: "Steward Admins", type: "organizationOwner" },
        { scimGroup: "Analysts", type: "teamMemberRole", teamId: "analytics", teamMemberRole: "member" },
        { scimGroup: "Analytics Leads", type: "teamMemberRole", teamId: "analytics", teamMemberRole: "owner" },
      ],
    });
    const eve = (await scim("POST", "/Users", { schemas: [USER], userName: "eve@example.com", active: true })).body.id as string;
    const hal = (await scim("POST", "/Users", { schemas: [USER], userName: "hal@example.com", active: true })).body.id as string;
    await t.server.services.people.addMember(t.server.services.database.db, t.organizationId, "eve@example.com", "member", PASSWORD);
    const signIn = await request(t.url, "POST", "/auth/sign-in", { email: "eve@example.com", password: PASSWORD });
    const cookie = /steward_session=[^;]+/.exec(signIn.headers.get("set-cookie")!)![0];
    const asEve = (method: string, path: string, body?: unknown) => request(t.url, method, path, body, { headers: { cookie, "x-csrf-token": signIn.body.csrfToken } });
    const product = { info: { title: "Eve's", owner: "analytics" } };
    const members = async () => ((await t.api("GET", "/api/teams/analytics")).body.members as Array<Record<string, unknown>>).map(({ emailAddress, role, provisionedBy }) => ({ emailAddress, role, provisionedBy }));
    const teamEvents = async () => ((await t.api("GET", "/api/events")).body as Array<{ type: string; subject: string }>).filter((e) => e.subject === "analytics" && e.type.endsWith("TeamUpdatedEvent")).length;
    expect((await asEve("PUT", "/api/dataproducts/eves-product", product)).status).toBe(403);

    const updatesBefore = await teamEvents();
    const group = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Analysts", members: [{ value: eve }, { value: hal }] });
    expect(group.status).toBe(201);
    // Eve is listed by the mapping; Hal, listed by hand, stays as he was listed.
    expect(await members()).toEqual([
      { emailAddress: "hal@example.com", role: "owner", provisionedBy: undefined },
      { emailAddress: "eve@example.com", role: "member", provisionedBy: "group-mapping" },
    ]);
    expect(await teamEvents()).toBe(updatesBefore + 1);
    expect([200, 201]).toContain((await asEve("PUT", "/api/dataproducts/eves-product", product)).status);

    // A second group raises her role; leaving it lowers it again.
    const leads = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Analytics Leads", members: [{ value: eve }] });
    expect((await members()).find((m) => m.emailAddress === "eve@example.com")?.role).toBe("member");
    await t.api("PUT", "/api/settings/scim-mapping", {
      scimGroupMappings: [
        { scimGroup: "Analytics Leads", type: "teamMemberRole", teamId: "analytics", teamMemberRole: "owner" },
        { scimGroup: "Analysts", type: "teamMemberRole", teamId: "analytics", teamMemberRole: "member" },
      ],
    });
    await scim("PATCH", `/Groups/${leads.body.id}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Analytics Leads" }] });
    expect((await members()).find((m) => m.emailAddress === "eve@example.com")?.role).toBe("owner");
    expect((await scim("DELETE", `/Groups/${leads.body.id}`)).status).toBe(204);
    expect((await members()).find((m) => m.emailAddress === "eve@example.com")?.role).toBe("member");

    // Removed from the group: out of the team and without its permissions; Hal stays.
    const removed = await scim("PATCH", `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${eve}"]` }] });
    expect(removed.status).toBe(200);
    expect(await members()).toEqual([{ emailAddress: "hal@example.com", role: "owner", provisionedBy: undefined }]);
    expect((await asEve("PUT", "/api/dataproducts/eves-product", { info: { title: "Eve's again", owner: "analytics" } })).status).toBe(403);
    const halGone = await scim("PATCH", `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${hal}"]` }] });
    expect(halGone.status).toBe(200);
    expect(await members()).toEqual([{ emailAddress: "hal@example.com", role: "owner", provisionedBy: undefined }]);

    // Back in the group, then deprovisioned: the team drops her too.
    await scim("PATCH", `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: eve }] }] });
    expect((await members()).map((m) => m.emailAddress)).toEqual(["hal@example.com", "eve@example.com"]);
    await scim("PATCH", `/Users/${eve}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });
    expect((await members()).map((m) => m.emailAddress)).toEqual(["hal@example.com"]);
    await scim("PATCH", `/Users/${eve}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: true } }] });
    expect((await members()).map((m) => m.emailAddress)).toEqual(["hal@example.com", "eve@example.com"]);
    expect((await scim("DELETE", `/Users/${eve}`)).status).toBe(204);
    expect((await members()).map((m) => m.emailAddress)).toEqual(["hal@example.com"]);
    await t.api("PUT", "/api/settings/scim-mapping", { scimGroupMappings: [{ scimGroup: "Steward Admins", type: "organizationOwner" }] });
  });

  it("answers errors as SCIM error documents with scimType", async () => {
    const badFilter = await scim("GET", `/Users?filter=${encodeURIComponent("userName eq")}`);
    expect(badFilter.status).toBe(400);
    expect(badFilter.body).toMatchObject({ schemas: [ERROR], status: "400", scimType: "invalidFilter" });
    const noName = await scim("POST", "/Users", { schemas: [USER], active: true });
    expect(noName.body).toMatchObject({ status: "400", scimType: "invalidValue" });
    const badPatch = await scim("PATCH", `/Groups/nothing`, { schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [] }] });
    expect(badPatch.status).toBe(404);
    const notPatch = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "x", members: [{ value: "no-such-user" }] });
    expect(notPatch.body).toMatchObject({ status: "400", scimType: "invalidValue" });
    const noKey = await request(t.url, "GET", "/api/scim/v2/Users");
    expect(noKey.status).toBe(401);
    expect(noKey.body.schemas).toEqual([ERROR]);
    const teamKey = (await t.api("POST", "/api/api-keys", { displayName: "sales", scope: "team", teamId: "sales" })).body.key;
    const forbidden = await request(t.url, "GET", "/api/scim/v2/Users", undefined, { headers: { authorization: `Bearer ${teamKey}` } });
    expect(forbidden.status).toBe(403);
  });

  it("pages lists with startIndex and count, and filters with co, sw, pr, ne, or", async () => {
    const other = await t.createOrganization(`paging-${kind}`);
    const api = (method: string, path: string, body?: unknown) =>
      request(t.url, method, `/api/scim/v2${path}`, body, { headers: { authorization: `Bearer ${other.key}` }, contentType: "application/scim+json" });
    for (const name of ["gus", "hal", "ida", "jon"]) await api("POST", "/Users", { schemas: [USER], userName: `${name}@corp.example`, ...(name === "hal" ? { title: "Lead" } : {}) });
    const page = await api("GET", "/Users?startIndex=2&count=2");
    expect(page.body).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((u: { userName: string }) => u.userName)).toEqual(["hal@corp.example", "ida@corp.example"]);
    const q = async (filter: string) => ((await api("GET", `/Users?filter=${encodeURIComponent(filter)}`)).body.Resources as Array<{ userName: string }>).map((u) => u.userName.split("@")[0]);
    expect(await q('userName co "D"')).toEqual(["ida"]);
    expect(await q('userName sw "j"')).toEqual(["jon"]);
    expect(await q("title pr")).toEqual(["hal"]);
    expect(await q('userName ne "gus@corp.example" and userName ne "jon@corp.example"')).toEqual(["hal", "ida"]);
    expect(await q('userName eq "gus@corp.example" or userName eq "jon@corp.example"')).toEqual(["gus", "jon"]);
    // Tenancy: the other organization's users are not there.
    expect((await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "gus@corp.example"')}`)).body.totalResults).toBe(0);
  });
});
