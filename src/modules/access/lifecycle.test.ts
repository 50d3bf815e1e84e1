import { describe, expect, it } from "vitest";
import { approvedOnCreation, decide, isActive, RULES, STAGES, stageOf, type AccessAction, type Side, type Stage, type TimedState } from "./lifecycle.js";

const NOW = "2026-05-01T12:00:00.000Z";
const BEFORE = "2026-04-01T00:00:00.000Z";
const AFTER = "2026-06-01T00:00:00.000Z";
const state = (s: Partial<TimedState>): TimedState => ({ status: "approved", canceledAt: null, startAt: null, endAt: null, ...s });

const NOBODY = new Set<Side>();
const CONSUMER = new Set<Side>(["consumer"]);
const PROVIDER = new Set<Side>(["provider"]);
const BOTH = new Set<Side>(["consumer", "provider"]);

describe("access stages", () => {
  it.each<[string, Partial<TimedState>, Stage]>([
    ["a request", { status: "requested" }, "requested"],
    ["a request whose end has passed (still undecided)", { status: "requested", endAt: BEFORE }, "requested"],
    ["approved, open-ended", {}, "approved"],
    ["approved, starting later", { startAt: AFTER }, "approved"],
    ["approved, past its end, never canceled", { endAt: BEFORE }, "ended"],
    ["canceled, its end ahead", { canceledAt: BEFORE, endAt: AFTER }, "canceled"],
    ["canceled, its end reached exactly now", { canceledAt: BEFORE, endAt: NOW }, "closed"],
    ["rejected", { status: "rejected" }, "closed"],
  ])("%s is %s", (_what, s, stage) => {
    expect(stageOf(state(s), NOW)).toBe(stage);
  });

  it("active means approved and now within [startDate, endDate)", () => {
    expect(isActive(state({}), NOW)).toBe(true);
    expect(isActive(state({ startAt: NOW, endAt: AFTER }), NOW)).toBe(true);
    expect(isActive(state({ startAt: AFTER }), NOW)).toBe(false);
    expect(isActive(state({ endAt: NOW }), NOW)).toBe(false);
    expect(isActive(state({ canceledAt: BEFORE, endAt: AFTER }), NOW)).toBe(true);
    expect(isActive(state({ status: "requested" }), NOW)).toBe(false);
    expect(isActive(state({ status: "rejected" }), NOW)).toBe(false);
  });
});

describe("the rules table", () => {
  // [action, stage, sides, expected]: every stage for every action, for each kind of principal.
  const table: Array<[AccessAction, Stage, Set<Side>, 200 | 403 | 409]> = [
    ["approve", "requested", PROVIDER, 200],
    ["approve", "requested", CONSUMER, 403],
    ["approve", "approved", PROVIDER, 409],
    ["approve", "closed", BOTH, 409],
    ["reject", "requested", PROVIDER, 200],
    ["reject", "requested", CONSUMER, 403],
    ["reject", "canceled", PROVIDER, 409],
    ["cancel", "requested", BOTH, 409],
    ["cancel", "approved", CONSUMER, 200],
    ["cancel", "approved", PROVIDER, 200],
    ["cancel", "canceled", CONSUMER, 200],
    ["cancel", "ended", BOTH, 409],
    ["cancel", "closed", BOTH, 409],
    ["change-agreement", "requested", CONSUMER, 200],
    ["change-agreement", "requested", PROVIDER, 200],
    ["change-agreement", "approved", CONSUMER, 403],
    ["change-agreement", "approved", PROVIDER, 200],
    ["change-agreement", "approved", BOTH, 200],
    ["change-agreement", "canceled", CONSUMER, 403],
    ["change-agreement", "ended", CONSUMER, 403],
    ["change-agreement", "closed", BOTH, 409],
    ["change-terms", "requested", CONSUMER, 200],
    ["change-terms", "approved", PROVIDER, 200],
    ["change-terms", "canceled", CONSUMER, 200],
    ["change-terms", "ended", CONSUMER, 200],
    ["change-terms", "closed", BOTH, 409],
    ["change-dates", "requested", CONSUMER, 200],
    ["change-dates", "requested", PROVIDER, 403],
    ["change-dates", "requested", BOTH, 200],
    ["change-dates", "approved", CONSUMER, 403],
    ["change-dates", "approved", PROVIDER, 200],
    ["change-dates", "ended", PROVIDER, 200],
    ["change-dates", "ended", CONSUMER, 403],
    ["change-dates", "canceled", BOTH, 409],
    ["change-dates", "closed", BOTH, 409],
    ["delete", "requested", CONSUMER, 200],
    ["delete", "closed", PROVIDER, 200],
    ["report-provisioning", "closed", PROVIDER, 200],
    ["report-provisioning", "approved", CONSUMER, 403],
  ];
  it.each(table)("%s from %s by %o → %i", (action, stage, sides, expected) => {
    const verdict = decide(action, stage, sides);
    expect(verdict.allowed ? 200 : verdict.status).toBe(expected);
    if (!verdict.allowed) expect(verdict.detail).toContain("rule: ");
  });

  it("refuses a principal of neither side with 403, whatever the stage", () => {
    for (const { action } of RULES) for (const stage of STAGES) expect(decide(action, stage, NOBODY)).toMatchObject({ allowed: false, status: 403 });
  });

  it("lets nothing but deletion and provisioning reports touch a closed access", () => {
    const open = RULES.filter((r) => r.from.includes("closed")).map((r) => r.action);
    expect(open.sort()).toEqual(["delete", "report-provisioning"]);
  });

  it("never lets a date change reach a canceled access", () => {
    expect(RULES.filter((r) => r.action === "change-dates").flatMap((r) => r.from)).not.toContain("canceled");
  });

  it("names the other side in a 403 and the stage in a 409", () => {
    expect(decide("change-dates", "approved", CONSUMER)).toMatchObject({ status: 403, detail: expect.stringContaining("only the provider side may change its dates") });
    expect(decide("cancel", "requested", CONSUMER)).toMatchObject({ status: 409, detail: expect.stringContaining("The access is requested") });
  });
});

describe("approval on creation", () => {
  it("approves an autoApprove port, or a consumer of the providing team, and nothing else", () => {
    expect(approvedOnCreation({ autoApprove: true, consumerTeamId: "a", providerTeamId: "b" })).toBe(true);
    expect(approvedOnCreation({ autoApprove: false, consumerTeamId: "b", providerTeamId: "b" })).toBe(true);
    expect(approvedOnCreation({ autoApprove: false, consumerTeamId: "a", providerTeamId: "b" })).toBe(false);
    expect(approvedOnCreation({ autoApprove: false, consumerTeamId: null, providerTeamId: null })).toBe(false);
  });
});
