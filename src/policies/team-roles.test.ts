import { describe, expect, it } from "vitest";
import { catalogViolations, DEFAULT_TEAM_ROLES, mayDoForTeam, OPERATION_PERMISSIONS, rolesInForce, teamPermissionsOf, type TeamOperation, type TeamRole } from "./team-roles.js";

const custom: TeamRole[] = [
  { name: "Approver", permissions: ["ACCESS_APPROVE", "RESOURCES_EDIT"] },
  { name: "Viewer", permissions: [] },
];

describe("team roles: role × permission × operation", () => {
  const operations = Object.keys(OPERATION_PERMISSIONS) as TeamOperation[];
  // Expected verdicts, operation by operation, for each role (built-in and custom).
  const table: Record<string, { roles: readonly TeamRole[]; allowed: TeamOperation[] }> = {
    owner: { roles: DEFAULT_TEAM_ROLES, allowed: operations },
    member: { roles: DEFAULT_TEAM_ROLES, allowed: operations },
    "any name, built-in": { roles: DEFAULT_TEAM_ROLES, allowed: operations },
    Approver: { roles: custom, allowed: ["resource.update", "access.approve", "access.reject"] },
    Viewer: { roles: custom, allowed: [] },
    stranger: { roles: custom, allowed: [] },
  };
  for (const [role, { roles, allowed }] of Object.entries(table)) {
    for (const operation of operations) {
      const expected = allowed.includes(operation);
      it(`given role '${role}', when it does ${operation}, then it is ${expected ? "allowed" : "refused"}`, () => {
        expect(mayDoForTeam(roles, role, operation)).toBe(expected);
      });
    }
  }

  it("compares role names without case, and grants nothing without a role", () => {
    expect(mayDoForTeam(DEFAULT_TEAM_ROLES, "OWNER", "team.delete")).toBe(true);
    expect(teamPermissionsOf(DEFAULT_TEAM_ROLES, undefined).size).toBe(0);
  });

  it("uses the custom catalog only in custom mode", () => {
    expect(rolesInForce("default", custom)).toBe(DEFAULT_TEAM_ROLES);
    expect(rolesInForce("custom-team-roles", custom)).toBe(custom);
  });

  it("finds duplicate names and unknown permissions in a catalog", () => {
    expect(catalogViolations([{ name: "A", permissions: [] }, { name: "a", permissions: ["NOPE" as never] }])).toEqual([
      { field: "team-roles[1].name", message: "duplicates the role 'a'" },
      { field: "team-roles[1].permissions[0]", message: "'NOPE' is not a team permission" },
    ]);
  });
});
