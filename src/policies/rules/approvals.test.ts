import { describe, expect, it } from "vitest";
import { approvalState, contractRoleRequirements, eligibleFor, ineligibility, type ApprovalRequirement, type Approver } from "./approvals.js";

const person = (id: string, teamRoles: Record<string, string>): Approver => ({ principal: `user:${id}`, scope: "team", teamIds: Object.keys(teamRoles), teamRoles });
const teamKey = (id: string, teamIds: string[]): Approver => ({ principal: `api-key:${id}`, scope: "team", teamIds });
const owner: Approver = { principal: "user:olga", scope: "organization", teamIds: [] };
const policy = (eligible: ApprovalRequirement["eligible"], count = 1): ApprovalRequirement => ({ source: "pii", name: "PII approvers", count, eligible });

describe("eligibility by team role (docs/policies.md)", () => {
  const owners = policy({ teamRoles: ["owner"] }, 2);

  it("given a rule counting the provider team's owners, when a member of that team approves, then it does not count, and the reason names their role", () => {
    const mia = person("mia", { sales: "member" });
    expect(eligibleFor(owners, mia, "sales")).toBe(false);
    expect(approvalState([owners], [mia], "sales")).toMatchObject({ met: false, given: 0, needed: 2, counts: [0] });
    expect(ineligibility([owners], mia, "sales")).toContain("'PII approvers' (pii) counts only the team roles 'owner', and this principal acts in 'sales' as 'member'");
  });

  it("given the same rule, when two owners of the provider team approve, then it is met; role names compare without case", () => {
    const ann = person("ann", { sales: "Owner" });
    const bob = person("bob", { sales: "owner", marketing: "member" });
    expect(approvalState([owners], [ann, bob], "sales")).toMatchObject({ met: true, given: 2, counts: [2] });
  });

  it("given a team role rule, when a team key of the provider team approves, then it does not count: a key holds no team role", () => {
    const key = teamKey("k1", ["sales"]);
    expect(eligibleFor(owners, key, "sales")).toBe(false);
    expect(ineligibility([owners], key, "sales")).toContain("for 'sales' with no team role (a team key)");
    // Without teamRoles the same key counts.
    expect(eligibleFor(policy({}), key, "sales")).toBe(true);
  });

  it("given a role held in another team, when its holder approves, then it does not count: the role must be in the team approved for", () => {
    expect(eligibleFor(owners, person("cem", { marketing: "owner", sales: "member" }), "sales")).toBe(false);
  });

  it("given named teams, when people of those teams approve, then the provider team no longer counts unless asked for, and roles apply within the named teams", () => {
    const privacy = policy({ teams: ["privacy"], teamRoles: ["owner"] });
    expect(eligibleFor(privacy, person("pia", { privacy: "owner" }), "sales")).toBe(true);
    expect(eligibleFor(privacy, person("pim", { privacy: "member" }), "sales")).toBe(false);
    expect(eligibleFor(privacy, person("ann", { sales: "owner" }), "sales")).toBe(false);
    expect(eligibleFor(policy({ teams: ["privacy"], providerTeam: true }), person("ann", { sales: "owner" }), "sales")).toBe(true);
    expect(ineligibility([privacy], person("ann", { sales: "owner" }), "sales")).toContain("counts principals acting for the team 'privacy', and this principal acts for none of them");
  });

  it("given organization: false, when an organization owner approves, then it does not count", () => {
    expect(eligibleFor(owners, owner, "sales")).toBe(true);
    expect(eligibleFor(policy({ organization: false }), owner, "sales")).toBe(false);
    expect(ineligibility([policy({ organization: false })], owner, "sales")).toContain("does not count organization-scoped principals");
  });
});

describe("contract role approvers in order (ODCS roles[].firstLevelApprovers, secondLevelApprovers)", () => {
  const contract = { roles: [{ role: "analyst", firstLevelApprovers: "legal", secondLevelApprovers: "privacy, security" }] };
  const [first, second] = contractRoleRequirements(contract, ["analyst"]);
  const legal = person("lea", { legal: "member" });
  const privacy = person("pia", { privacy: "member" });
  const both = person("bo", { legal: "member", privacy: "member" });

  it("given a role with two levels, then the second level comes after the first", () => {
    expect(first).toMatchObject({ source: "contract-role:analyst:first", eligible: { teams: ["legal"] } });
    expect(first!.after).toBeUndefined();
    expect(second).toMatchObject({ source: "contract-role:analyst:second", after: "contract-role:analyst:first", eligible: { teams: ["privacy", "security"] } });
  });

  it("when a second-level approver approves before the first level is complete, then it does not count, and the second level waits", () => {
    const state = approvalState([first!, second!], [privacy, legal], null);
    expect(state).toMatchObject({ met: false, counts: [1, 0], waiting: [false, false] });
    expect(approvalState([first!, second!], [], null).waiting).toEqual([false, true]);
  });

  it("when the first level is complete and then a second-level approver approves, then both are met", () => {
    expect(approvalState([first!, second!], [legal, privacy], null)).toMatchObject({ met: true, given: 2, needed: 2, counts: [1, 1] });
  });

  it("when one person of both levels approves once, then it completes the first level only", () => {
    expect(approvalState([first!, second!], [both], null)).toMatchObject({ met: false, counts: [1, 0] });
    expect(approvalState([first!, second!], [both, privacy], null)).toMatchObject({ met: true });
  });

  it("given only a second level, then it stands alone", () => {
    const [only] = contractRoleRequirements({ roles: [{ role: "analyst", secondLevelApprovers: "privacy" }] }, ["analyst"]);
    expect(only!.after).toBeUndefined();
    expect(approvalState([only!], [privacy], null).met).toBe(true);
  });
});
