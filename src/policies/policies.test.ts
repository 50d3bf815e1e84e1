import { describe, expect, it } from "vitest";
import type { Principal } from "../platform/auth.js";
import { sidesOf } from "./access.js";
import { policy } from "./index.js";

const org: Principal = { organizationId: "o", scope: "organization", teamIds: [] };
const team: Principal = { organizationId: "o", scope: "team", teamIds: ["sales"] };
const readOnly: Principal = { organizationId: "o", scope: "team_read", teamIds: ["sales"] };

/** Each change a principal might attempt, run against a policy check. */
const CHANGES: Array<[string, (p: Principal) => void]> = [
  ["change its own team", (p) => policy.writeTeam(p, "sales")],
  ["change what its team owns", (p) => policy.writeOwned(p, "asset", ["sales"])],
  ["change what no team owns", (p) => policy.writeOwned(p, "asset", [null])],
  ["change another team's", (p) => policy.writeOwned(p, "asset", ["search"])],
  ["manage API keys", (p) => policy.manageApiKeys(p)],
  ["manage members", (p) => policy.manageMembers(p)],
  ["manage connectors", (p) => policy.manageConnectors(p)],
];

/** Who may make which change: organization, team, team_read. */
const ALLOWED: Record<string, [boolean, boolean, boolean]> = {
  "change its own team": [true, true, false],
  "change what its team owns": [true, true, false],
  "change what no team owns": [true, false, false],
  "change another team's": [true, false, false],
  "manage API keys": [true, false, false],
  "manage members": [true, false, false],
  "manage connectors": [true, false, false],
};

const allowed = (check: (p: Principal) => void, p: Principal) => {
  try {
    check(p);
    return true;
  } catch (error) {
    expect((error as { status?: number }).status).toBe(403);
    return false;
  }
};

describe("policies by scope", () => {
  it.each(CHANGES)("%s", (name, check) => {
    expect([org, team, readOnly].map((p) => allowed(check, p))).toEqual(ALLOWED[name]);
  });

  it("gives a read-only key no side of any access", () => {
    expect(sidesOf(readOnly, { consumerTeamId: "sales", providerTeamId: "sales" }).size).toBe(0);
    expect(sidesOf(team, { consumerTeamId: "sales", providerTeamId: null })).toEqual(new Set(["consumer"]));
  });
});

describe("refusals before the body is read", () => {
  it("refuses a read-only key every change, and only changes", async () => {
    const { refuseBeforeBody } = await import("./before-body.js");
    for (const method of ["PUT", "POST", "DELETE", "PATCH"]) expect(() => refuseBeforeBody(readOnly, method, "addDataContract")).toThrow(/read-only key/);
    for (const method of ["GET", "HEAD", "OPTIONS"]) expect(() => refuseBeforeBody(readOnly, method, "getDataContract")).not.toThrow();
    for (const operation of ["previewDataContractChanges", "validateSchema"]) expect(() => refuseBeforeBody(readOnly, "POST", operation)).not.toThrow();
    for (const p of [org, team]) expect(() => refuseBeforeBody(p, "PUT", "addDataContract")).not.toThrow();
  });
});
