import { describe, expect, it } from "vitest";
import type { Principal } from "../platform/auth.js";
import { accessPolicy, sidesOf } from "./access.js";
import { policy } from "./index.js";
import { scopePermits } from "./scopes.js";

const org: Principal = { organizationId: "o", scope: "organization", teamIds: [] };
const team: Principal = { organizationId: "o", scope: "team", teamIds: ["sales"] };
const readOnly: Principal = { organizationId: "o", scope: "team_read", teamIds: ["sales"] };
const orgRead: Principal = { organizationId: "o", scope: "organization_read", teamIds: [] };
const connector: Principal = { organizationId: "o", scope: "connector", teamIds: [] };

/** Each change a principal might attempt, run against a policy check. */
const CHANGES: Array<[string, (p: Principal) => void]> = [
  ["change its own team", (p) => policy.writeTeam(p, "sales")],
  ["change what its team owns", (p) => policy.writeOwned(p, "asset", ["sales"])],
  ["change what no team owns", (p) => policy.writeOwned(p, "asset", [null])],
  ["change another team's", (p) => policy.writeOwned(p, "asset", ["search"])],
  ["manage API keys", (p) => policy.manageApiKeys(p)],
  ["manage members", (p) => policy.manageMembers(p)],
  ["manage connectors", (p) => policy.manageConnectors(p)],
  ["read connectors", (p) => policy.readConnectors(p)],
  ["list members", (p) => policy.readMembers(p)],
  ["publish a breaking change", (p) => policy.overrideBreakingChange(p)],
  ["manage its team's notification channels", (p) => policy.manageNotificationChannels(p, "sales")],
  ["manage another team's notification channels", (p) => policy.manageNotificationChannels(p, "search")],
  ["read own notifications (without being a person)", (p) => policy.readOwnNotifications(p)],
];

/** Who may make which change: organization, team, team_read, organization_read, connector. */
const ALLOWED: Record<string, [boolean, boolean, boolean, boolean, boolean]> = {
  "change its own team": [true, true, false, false, false],
  "change what its team owns": [true, true, false, false, false],
  "change what no team owns": [true, false, false, false, false],
  "change another team's": [true, false, false, false, false],
  "manage API keys": [true, false, false, false, false],
  "manage members": [true, false, false, false, false],
  "manage connectors": [true, false, false, false, true],
  "read connectors": [true, false, false, true, true],
  "list members": [true, false, false, true, false],
  "publish a breaking change": [true, false, false, false, false],
  "manage its team's notification channels": [true, true, false, false, false],
  "manage another team's notification channels": [true, false, false, false, false],
  // The principals here are API keys: notifications belong to people.
  "read own notifications (without being a person)": [false, false, false, false, false],
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
    expect([org, team, readOnly, orgRead, connector].map((p) => allowed(check, p))).toEqual(ALLOWED[name]);
  });

  it("gives a read-only or connector key no side of any access", () => {
    expect(sidesOf(readOnly, { consumerTeamId: "sales", providerTeamId: "sales" }).size).toBe(0);
    expect(sidesOf(orgRead, { consumerTeamId: "sales", providerTeamId: "sales" }).size).toBe(0);
    expect(sidesOf(connector, { consumerTeamId: "sales", providerTeamId: "sales" }).size).toBe(0);
    expect(sidesOf(team, { consumerTeamId: "sales", providerTeamId: null })).toEqual(new Set(["consumer"]));
  });
});

describe("the access rules for a connector key", () => {
  const teams = { consumerTeamId: "marketing", providerTeamId: "sales" };
  it.each([
    ["report-provisioning", "approved", true],
    ["report-provisioning", "closed", true],
    ["approve", "requested", false],
    ["cancel", "approved", false],
    ["change-terms", "approved", false],
    ["delete", "approved", false],
  ] as const)("%s from %s → %s", (action, stage, expected) => {
    expect(allowed(() => accessPolicy.act(connector, teams, action, stage), connector)).toBe(expected);
  });
});

describe("what each scope may do at all, from the operation alone", () => {
  const ops = {
    read: { method: "GET", route: "/api/teams/:id" },
    feed: { method: "GET", route: "/api/events" },
    validate: { method: "POST", route: "/api/schemas/validate" },
    preview: { method: "POST", route: "/api/datacontracts/:id/changes" },
    write: { method: "PUT", route: "/api/teams/:id" },
    remove: { method: "DELETE", route: "/api/dataproducts/:id" },
    approve: { method: "POST", route: "/api/access/:id/approve" },
    report: { method: "POST", route: "/api/access/:id/provisioning/provisioning-succeeded" },
    replaceProvisioning: { method: "PUT", route: "/api/access/:id/provisioning" },
    state: { method: "PUT", route: "/api/connectors/:id" },
    unregister: { method: "DELETE", route: "/api/connectors/:id" },
    keys: { method: "GET", route: "/api/api-keys" },
    newKey: { method: "POST", route: "/api/api-keys" },
  };
  type Name = keyof typeof ops;
  // Given a scope, when it attempts each operation, then exactly these get past the gate.
  const PERMITTED: Record<Principal["scope"], Name[]> = {
    organization: Object.keys(ops) as Name[],
    team: Object.keys(ops) as Name[],
    organization_read: ["read", "feed", "validate", "preview", "keys"],
    team_read: ["read", "feed", "validate", "preview", "keys"],
    connector: ["read", "feed", "validate", "preview", "report", "replaceProvisioning", "state"],
  };
  it.each(Object.keys(PERMITTED) as Array<Principal["scope"]>)("%s", (scope) => {
    const permitted = (Object.keys(ops) as Name[]).filter((name) => scopePermits(scope, ops[name]).allowed);
    expect(permitted).toEqual(PERMITTED[scope]);
  });

  it("names the rule in every refusal", () => {
    const verdict = scopePermits("connector", ops.approve);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.detail).toContain("rule: a connector reads, reports provisioning and keeps its state");
  });
});
