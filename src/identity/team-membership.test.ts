import { describe, expect, it } from "vitest";
import type { GroupMapping } from "./mapping.js";
import { MAPPED_MARKER, mappedTeamRoles, membersAfter } from "./team-membership.js";

const mapped = (emailAddress: string, role: string) => ({ emailAddress, role, provisionedBy: MAPPED_MARKER });

describe("membersAfter", () => {
  it("given a person the mapping puts in a team they are not in, when applied, then they are listed with the role and the marker", () => {
    expect(membersAfter([{ emailAddress: "ann@example.com", role: "owner" }], "bo@example.com", "member")).toEqual([
      { emailAddress: "ann@example.com", role: "owner" },
      mapped("bo@example.com", "member"),
    ]);
  });

  it("given a mapped member whose role changed, when applied, then only the role changes", () => {
    expect(membersAfter([mapped("bo@example.com", "member")], "Bo@Example.com", "owner")).toEqual([mapped("bo@example.com", "owner")]);
  });

  it("given nothing to change, when applied, then the answer is undefined", () => {
    expect(membersAfter([mapped("bo@example.com", "member")], "bo@example.com", "member")).toBeUndefined();
    expect(membersAfter([], "bo@example.com", undefined)).toBeUndefined();
  });

  it("given a mapped member no group puts there any more, when applied, then they are removed", () => {
    expect(membersAfter([{ emailAddress: "ann@example.com" }, mapped("bo@example.com", "member")], "bo@example.com", undefined)).toEqual([{ emailAddress: "ann@example.com" }]);
  });

  it("given a member listed by hand, when applied, then they stay as listed whatever the groups say", () => {
    const byHand = [{ emailAddress: "bo@example.com", role: "owner" }];
    expect(membersAfter(byHand, "bo@example.com", undefined)).toBeUndefined();
    expect(membersAfter(byHand, "bo@example.com", "member")).toBeUndefined();
  });
});

describe("mappedTeamRoles", () => {
  const mapping: GroupMapping = {
    scimGroupMappings: [
      { scimGroup: "admins", type: "organizationOwner" },
      { scimGroup: "data", type: "teamMemberRole", teamId: "data-team", teamMemberRole: "owner" },
      { scimGroup: "readers", type: "teamMemberRole", teamId: "data-team", teamMemberRole: "member" },
      { scimGroup: "sales", type: "teamMemberRole", teamId: "sales", teamMemberRole: "member" },
    ],
  };

  it("given the person's groups, then every team the mapping names gets the role of the first matching entry or none", () => {
    expect(mappedTeamRoles(mapping, ["readers", "data"])).toEqual(new Map([["data-team", "owner"], ["sales", undefined]]));
    expect(mappedTeamRoles(mapping, ["sales"])).toEqual(new Map([["data-team", undefined], ["sales", "member"]]));
  });

  it("given a person who is no member any more (null), then no team keeps them", () => {
    expect(mappedTeamRoles(mapping, null)).toEqual(new Map([["data-team", undefined], ["sales", undefined]]));
  });
});
