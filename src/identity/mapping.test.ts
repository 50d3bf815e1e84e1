import { describe, expect, it } from "vitest";
import { mappedStanding, mappingViolations, nextRole, type GroupMapping } from "./mapping.js";
import { mayTurnOffPasswords } from "./rules.js";

const mapping: GroupMapping = {
  scimGroupMappings: [
    { scimGroup: "admins", type: "organizationOwner" },
    { scimGroup: "data", type: "teamMemberRole", teamId: "data-team", teamMemberRole: "owner" },
    { scimGroup: "data-readers", type: "teamMemberRole", teamId: "data-team", teamMemberRole: "member" },
    { scimGroup: "sales", type: "teamMemberRole", teamId: "sales", teamMemberRole: "member" },
  ],
};

describe("the group mapping", () => {
  it("makes a person in an owner group an owner, with the teams of their other groups", () => {
    expect(mappedStanding(mapping, ["admins", "sales"])).toEqual({ matched: true, role: "owner", decidesOwners: true, teams: [{ teamId: "sales", role: "member" }] });
  });

  it("gives one role per team: the first entry naming the team wins", () => {
    expect(mappedStanding(mapping, ["data-readers", "data"]).teams).toEqual([{ teamId: "data-team", role: "owner" }]);
  });

  it("matches nothing for groups it does not name, and compares names exactly", () => {
    expect(mappedStanding(mapping, ["Admins", "other"])).toMatchObject({ matched: false, role: null, teams: [] });
  });

  it.each([
    // [matched role, current role, last owner, next role]
    ["owner", undefined, false, "owner"],
    ["member", undefined, false, "member"],
    ["member", "owner", false, "member"],
    ["member", "owner", true, "owner"],
    [null, "owner", false, "owner"],
    [null, undefined, false, undefined],
  ] as const)("given a mapped role %s, when the person is %s (last owner: %s), then they become %s", (groupsRole, current, lastOwner, expected) => {
    const groups = groupsRole === "owner" ? ["admins"] : groupsRole === "member" ? ["sales"] : [];
    expect(nextRole(mappedStanding(mapping, groups), current, lastOwner)).toBe(expected);
  });

  it("never lowers an owner when the mapping names no owner group", () => {
    const teamsOnly: GroupMapping = { scimGroupMappings: [{ scimGroup: "sales", type: "teamMemberRole", teamId: "sales", teamMemberRole: "member" }] };
    expect(nextRole(mappedStanding(teamsOnly, ["sales"]), "owner", false)).toBe("owner");
  });

  it("requires the team and the role of a team entry", () => {
    expect(mappingViolations({ scimGroupMappings: [{ scimGroup: "x", type: "teamMemberRole" }] })).toEqual([
      { field: "scimGroupMappings[0].teamId", message: "is required when type is teamMemberRole" },
      { field: "scimGroupMappings[0].teamMemberRole", message: "is required when type is teamMemberRole" },
    ]);
  });
});

describe("turning password sign-in off", () => {
  it("given no provider, refuses", () => expect(mayTurnOffPasswords({ ssoConfigured: false, ownersSignedInWithSso: 3 })).toEqual({ allowed: false, reason: "no-sso" }));
  it("given a provider but no owner who signed in with it, refuses", () =>
    expect(mayTurnOffPasswords({ ssoConfigured: true, ownersSignedInWithSso: 0 })).toEqual({ allowed: false, reason: "no-owner-signed-in-with-sso" }));
  it("given an owner who signed in with it, allows", () => expect(mayTurnOffPasswords({ ssoConfigured: true, ownersSignedInWithSso: 1 })).toEqual({ allowed: true }));
});
