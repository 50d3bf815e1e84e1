import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseKind } from "../helpers/databases.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";

describe.each<DatabaseKind>(["sqlite", "postgres"])("organization members, team roles and the group mapping (%s)", (kind) => {
  let t: TestServer;
  let teamKey: string;
  beforeAll(async () => {
    t = await startTestServer(kind);
    const { people, database } = t.server.services;
    await people.addMember(database.db, t.organizationId, "olga@example.com", "owner", "a long enough password");
    await people.addMember(database.db, t.organizationId, "max@example.com", "member", "a long enough password");
    await t.api("PUT", "/api/teams/data", { name: "Data", members: [{ emailAddress: "max@example.com", role: "Approver" }] });
    teamKey = (await t.api("POST", "/api/api-keys", { displayName: "data", scope: "team", teamId: "data" })).body.key;
  });
  afterAll(() => t?.close());

  it("lists members in the reference's shape, oldest first, and finds one by address", async () => {
    const list = await t.api("GET", "/api/organization/members");
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { emailAddress: "olga@example.com", userId: expect.any(String), role: "Owner" },
      { emailAddress: "max@example.com", userId: expect.any(String), role: "Member" },
    ]);
    expect((await t.api("GET", "/api/organization/members/MAX@example.com")).body.role).toBe("Member");
    expect((await t.api("GET", "/api/organization/members/nobody@example.com")).status).toBe(404);
    expect((await request(t.url, "GET", "/api/organization/members", undefined, { key: teamKey })).status).toBe(403);
  });

  it("switches to a custom team role catalog and back, refusing what would strip permissions", async () => {
    expect((await t.api("GET", "/api/settings/team-roles")).body).toEqual({ mode: "default" });
    expect((await t.api("PUT", "/api/settings/team-roles", { mode: "custom-team-roles", "team-roles": [] })).status).toBe(409);
    const unknown = await t.api("PUT", "/api/settings/team-roles", { mode: "custom-team-roles", "team-roles": [{ name: "Approver", permissions: ["FLY"] }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.violations[0]).toMatchObject({ field: "team-roles[0].permissions[0]" });
    const duplicate = await t.api("PUT", "/api/settings/team-roles", { mode: "custom-team-roles", "team-roles": [{ name: "Approver", permissions: [] }, { name: "approver", permissions: [] }] });
    expect(duplicate.status).toBe(400);

    const custom = await t.api("PUT", "/api/settings/team-roles", {
      mode: "custom-team-roles",
      "team-roles": [
        { name: "Steward", rank: 20, permissions: ["RESOURCES_EDIT"] },
        { name: "Approver", description: "Decides on access", rank: 10, permissions: ["ACCESS_APPROVE", "ACCESS_APPROVE"] },
      ],
    });
    expect(custom.status).toBe(200);
    expect(custom.body["team-roles"].map((r: { name: string }) => r.name)).toEqual(["Approver", "Steward"]);
    expect(custom.body["team-roles"][0].permissions).toEqual(["ACCESS_APPROVE"]);
    // Max is an Approver of team data: that role cannot be dropped.
    const drop = await t.api("PUT", "/api/settings/team-roles", { mode: "custom-team-roles", "team-roles": [{ name: "Steward", permissions: [] }] });
    expect(drop.status).toBe(409);
    expect(drop.body.detail).toContain("'Approver'");
    // Back to the built-in roles; the catalog is kept for the next switch, and shown as kept.
    const kept = [
      { name: "Approver", description: "Decides on access", rank: 10, permissions: ["ACCESS_APPROVE"] },
      { name: "Steward", description: null, rank: 20, permissions: ["RESOURCES_EDIT"] },
    ];
    expect((await t.api("PUT", "/api/settings/team-roles", { mode: "default" })).body).toEqual({ mode: "default", "team-roles": kept });
    expect((await t.api("GET", "/api/settings/team-roles")).body).toEqual({ mode: "default", "team-roles": kept });
    expect(await t.server.services.identity.teamRoles.rolesFor(t.organizationId)).toMatchObject([{ name: "owner" }, { name: "member" }]);
    // What GET answers can be put back as it is: nothing changes.
    expect((await t.api("PUT", "/api/settings/team-roles", { mode: "default", "team-roles": kept })).body).toEqual({ mode: "default", "team-roles": kept });
    expect((await request(t.url, "PUT", "/api/settings/team-roles", { mode: "default" }, { key: teamKey })).status).toBe(403);
  });

  it("keeps a group mapping in the reference's shape and refuses an incomplete entry", async () => {
    expect((await t.api("GET", "/api/settings/scim-mapping")).body).toEqual({ scimGroupMappings: [] });
    const incomplete = await t.api("PUT", "/api/settings/scim-mapping", { scimGroupMappings: [{ scimGroup: "data", type: "teamMemberRole" }] });
    expect(incomplete.status).toBe(422);
    expect(incomplete.body.violations.map((v: { field: string }) => v.field)).toEqual(["scimGroupMappings[0].teamId", "scimGroupMappings[0].teamMemberRole"]);
    const mapping = { scimGroupMappings: [{ scimGroup: "admins", type: "organizationOwner" }, { scimGroup: "data", type: "teamMemberRole", teamId: "data", teamMemberRole: "Approver" }] };
    expect((await t.api("PUT", "/api/settings/scim-mapping", mapping)).status).toBe(200);
    expect((await t.api("GET", "/api/settings/scim-mapping")).body).toEqual(mapping);
    expect((await request(t.url, "GET", "/api/settings/scim-mapping", undefined, { key: teamKey })).status).toBe(403);
    // Turning passwords off needs a provider.
    const off = await t.api("PUT", "/api/settings/sign-in", { passwordSignIn: false });
    expect(off.status).toBe(409);
    expect((await t.api("GET", "/api/settings/sign-in")).body).toEqual({ passwordSignIn: true, ssoConfigured: false, ownersSignedInWithSso: 0 });
  });

  it("refuses a mapping that names a team role the organization does not have, at its position, and keeps the mapping it had", async () => {
    const before = (await t.api("GET", "/api/settings/scim-mapping")).body;
    const typo = await t.api("PUT", "/api/settings/scim-mapping", {
      scimGroupMappings: [
        { scimGroup: "data", type: "teamMemberRole", teamId: "data", teamMemberRole: "approver" },
        { scimGroup: "admins", type: "organizationOwner" },
        { scimGroup: "readers", type: "teamMemberRole", teamId: "data", teamMemberRole: "Aproover" },
      ],
    });
    expect(typo.status).toBe(422);
    expect(typo.headers.get("content-type")).toContain("application/problem+json");
    expect(typo.body.violations).toEqual([{ field: "scimGroupMappings[2].teamMemberRole", message: expect.stringContaining("names no team role") }]);
    expect((await t.api("GET", "/api/settings/scim-mapping")).body).toEqual(before);
    // A team that does not exist yet is no fault: the mapping may come before its team.
    const later = { scimGroupMappings: [...before.scimGroupMappings, { scimGroup: "future", type: "teamMemberRole", teamId: "not-yet", teamMemberRole: "member" }] };
    expect((await t.api("PUT", "/api/settings/scim-mapping", later)).status).toBe(200);
    // A custom catalog without a role the mapping gives is refused until the mapping changes.
    const without = await t.api("PUT", "/api/settings/team-roles", { mode: "custom-team-roles", "team-roles": [{ name: "Approver", permissions: ["ACCESS_APPROVE"] }] });
    expect(without.status).toBe(409);
    expect(without.body.detail).toContain("'member' are given by the group mapping");
    expect((await t.api("GET", "/api/settings/team-roles")).body.mode).toBe("default");
    expect((await t.api("PUT", "/api/settings/scim-mapping", before)).status).toBe(200);
  });

  it("lets a person's role in a team decide what they may do for it, once the organization has its own roles", async () => {
    const signIn = await request(t.url, "POST", "/auth/sign-in", { email: "max@example.com", password: "a long enough password" });
    const cookie = /steward_session=[^;]+/.exec(signIn.headers.get("set-cookie")!)![0];
    const asMax = (method: string, path: string, body?: unknown) => request(t.url, method, path, body, { headers: { cookie, "x-csrf-token": signIn.body.csrfToken } });
    const product = (title: string) => ({ info: { title, owner: "data" } });

    // Built-in roles: being in the team is enough.
    expect((await asMax("PUT", "/api/dataproducts/p1", product("P1"))).status).toBe(200);
    expect((await asMax("DELETE", "/api/dataproducts/p1")).status).toBe(204);

    await t.api("PUT", "/api/settings/team-roles", {
      mode: "custom-team-roles",
      "team-roles": [
        { name: "Approver", permissions: ["ACCESS_APPROVE"] },
        { name: "Editor", permissions: ["RESOURCES_ADD", "RESOURCES_EDIT"] },
      ],
    });
    // An Approver may not add a product for the team.
    const refused = await asMax("PUT", "/api/dataproducts/p2", product("P2"));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("RESOURCES_ADD");
    // As an Editor: add and change, but neither delete nor change the team itself.
    await t.api("PUT", "/api/teams/data", { name: "Data", members: [{ emailAddress: "max@example.com", role: "Editor" }] });
    expect((await asMax("PUT", "/api/dataproducts/p2", product("P2"))).status).toBe(200);
    expect((await asMax("PUT", "/api/dataproducts/p2", product("P2 renamed"))).status).toBe(200);
    expect((await asMax("DELETE", "/api/dataproducts/p2")).status).toBe(403);
    expect((await asMax("PUT", "/api/teams/data", { name: "Data!", members: [{ emailAddress: "max@example.com", role: "Editor" }] })).status).toBe(403);
    // Organization keys are not bound by team roles.
    expect((await t.api("DELETE", "/api/dataproducts/p2")).status).toBe(204);
    await t.api("PUT", "/api/settings/team-roles", { mode: "default" });
  });

  it("lets only a role with ACCESS_APPROVE approve requests for the team's products", async () => {
    const signIn = await request(t.url, "POST", "/auth/sign-in", { email: "max@example.com", password: "a long enough password" });
    const cookie = /steward_session=[^;]+/.exec(signIn.headers.get("set-cookie")!)![0];
    const asMax = (method: string, path: string, body?: unknown) => request(t.url, method, path, body, { headers: { cookie, "x-csrf-token": signIn.body.csrfToken } });
    await t.api("PUT", "/api/teams/shop", { name: "Shop" });
    await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "data" }, outputPorts: [{ id: "pg", type: "postgres" }] });
    await t.api("PUT", "/api/settings/team-roles", {
      mode: "custom-team-roles",
      "team-roles": [
        { name: "Approver", permissions: ["ACCESS_APPROVE"] },
        { name: "Editor", permissions: ["RESOURCES_ADD", "RESOURCES_EDIT"] },
      ],
    });
    await t.api("PUT", "/api/teams/data", { name: "Data", members: [{ emailAddress: "max@example.com", role: "Editor" }] });
    const made = await t.api("PUT", "/api/access/shop-orders", { info: { purpose: "Dashboards" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "shop" } });
    expect(made.body.info.status).toBe("requested");
    expect((await asMax("POST", "/api/access/shop-orders/approve", {})).status).toBe(403);
    await t.api("PUT", "/api/teams/data", { name: "Data", members: [{ emailAddress: "max@example.com", role: "Approver" }] });
    const approved = await asMax("POST", "/api/access/shop-orders/approve", {});
    expect(approved.status).toBe(200);
    expect(approved.body.info.status).toBe("approved");
    await t.api("PUT", "/api/settings/team-roles", { mode: "default" });
  });
});
