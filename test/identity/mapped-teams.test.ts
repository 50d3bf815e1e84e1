import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseKind } from "../helpers/databases.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";

/**
 * The group mapping's team entries are written in the transaction of the SCIM change that causes
 * them (docs/identity.md, "Teams from groups"): a team whose stored document cannot be written as
 * a team is left as it is, and the change still answers as it would without it.
 */

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

describe.each<DatabaseKind>(["sqlite", "postgres"])("teams from groups, in the change's transaction (%s)", (kind) => {
  let t: TestServer;
  const scim = (method: string, path: string, body?: unknown) =>
    request(t.url, method, `/api/scim/v2${path}`, body, { headers: { authorization: `Bearer ${t.key}` }, contentType: "application/scim+json" });
  const storedText = async (teamId: string) =>
    (await sql<{ doc: string }>`select "doc" from "resources" where "organization_id" = ${t.organizationId} and "kind" = 'team' and "id" = ${teamId}`.execute(t.server.services.database.db)).rows[0]?.doc;
  const store = (teamId: string, text: string) =>
    sql`update "resources" set "doc" = ${text} where "organization_id" = ${t.organizationId} and "kind" = 'team' and "id" = ${teamId}`.execute(t.server.services.database.db);
  const memberRole = async (email: string) => ((await t.api("GET", "/api/members")).body as Array<{ email: string; role: string }>).find((m) => m.email === email)?.role;

  beforeAll(async () => {
    t = await startTestServer(kind);
    // An owner besides the provisioned people: the last owner is never lowered or removed.
    await t.server.services.people.addMember(t.server.services.database.db, t.organizationId, "root@example.com", "owner", "a long enough password");
    for (const id of ["broken", "odd", "fine"]) expect((await t.api("PUT", `/api/teams/${id}`, { name: id })).status).toBeLessThan(300);
    await t.api("PUT", "/api/settings/scim-mapping", {
      scimGroupMappings: [
        { scimGroup: "Data", type: "organizationOwner" },
        { scimGroup: "Data", type: "teamMemberRole", teamId: "broken", teamMemberRole: "member" },
        { scimGroup: "Data", type: "teamMemberRole", teamId: "odd", teamMemberRole: "member" },
        { scimGroup: "Data", type: "teamMemberRole", teamId: "fine", teamMemberRole: "member" },
      ],
    });
    // Stored documents no team write would accept: text that is not JSON, and members that are not a list.
    await store("broken", '{"id": "broken", "name": ');
    await store("odd", '{"id": "odd", "name": "odd", "members": {"not": "a list"}}');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it("a team whose stored document is not a team is left as it is; the change and the other teams commit together", async () => {
    const user = await scim("POST", "/Users", { schemas: [USER], userName: "nora@example.com", active: true });
    expect(user.status).toBe(201);
    const group = await scim("POST", "/Groups", { schemas: [GROUP], displayName: "Data", members: [{ value: user.body.id }] });
    expect(group.status).toBe(201);
    expect(await memberRole("nora@example.com")).toBe("owner");
    expect((await t.api("GET", "/api/teams/fine")).body.members).toEqual([{ emailAddress: "nora@example.com", role: "member", provisionedBy: "group-mapping" }]);
    expect(await storedText("broken")).toBe('{"id": "broken", "name": ');
    expect(await storedText("odd")).toBe('{"id": "odd", "name": "odd", "members": {"not": "a list"}}');

    const left = await scim("PATCH", `/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${user.body.id}"]` }] });
    expect(left.status).toBe(200);
    expect(await memberRole("nora@example.com")).toBe("member");
    expect((await t.api("GET", "/api/teams/fine")).body.members).toEqual([]);

    const gone = await scim("PATCH", `/Users/${user.body.id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });
    expect(gone.status).toBe(200);
    expect(await memberRole("nora@example.com")).toBeUndefined();
    expect(await storedText("broken")).toBe('{"id": "broken", "name": ');
  });
});
