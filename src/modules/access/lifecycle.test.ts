import { describe, expect, it } from "vitest";
import { approvedOnCreation, changesOf, decide, isActive, RULES, STAGES, stageOf, type AccessAction, type Side, type Stage, type TimedState } from "./lifecycle.js";
import type { Access } from "./shapes.js";

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
    ["change-labels", "closed", CONSUMER, 200],
    ["change-labels", "closed", PROVIDER, 200],
    ["change-labels", "requested", CONSUMER, 200],
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

  it("lets nothing but deletion, provisioning reports and labels (tags, links, custom) touch a closed access", () => {
    const open = RULES.filter((r) => r.from.includes("closed")).map((r) => r.action);
    expect(open.sort()).toEqual(["change-labels", "delete", "report-provisioning"]);
    for (const sides of [CONSUMER, PROVIDER]) expect(decide("change-labels", "closed", sides)).toEqual({ allowed: true });
    expect(decide("change-terms", "closed", BOTH)).toMatchObject({ allowed: false, status: 409 });
  });

  it("never lets a date change reach a canceled access", () => {
    expect(RULES.filter((r) => r.action === "change-dates").flatMap((r) => r.from)).not.toContain("canceled");
  });

  it("names the other side in a 403 and the stage in a 409", () => {
    expect(decide("change-dates", "approved", CONSUMER)).toMatchObject({ status: 403, detail: expect.stringContaining("only the provider side may change its dates") });
    expect(decide("cancel", "requested", CONSUMER)).toMatchObject({ status: 409, detail: expect.stringContaining("The access is requested") });
  });
});

describe("what a PUT changes", () => {
  const access = (extra: Record<string, unknown> = {}, info: Record<string, unknown> = {}) =>
    ({ info: { purpose: "p", ...info }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "marketing" }, ...extra }) as unknown as Access;

  it("given a stored access, when only tags, links or custom differ, then only its labels changed", () => {
    for (const extra of [{ tags: ["revoked"] }, { links: { ticket: "https://t" } }, { custom: { k: "v" } }]) {
      expect(changesOf(access(), access(extra))).toEqual({ datesChanged: false, agreementChanged: false, termsChanged: false, labelsChanged: true });
    }
  });

  it("given a stored access without lists and maps, when a generated client sends them empty, then nothing changed", () => {
    expect(changesOf(access(), access({ roles: [], tags: [], links: {}, custom: {} }))).toEqual({ datesChanged: false, agreementChanged: false, termsChanged: false, labelsChanged: false });
  });

  it("given a stored access, when the purpose, roles, other terms or dates differ too, then those are what was agreed, terms and dates", () => {
    expect(changesOf(access(), access({ tags: ["x"], roles: ["r"] }))).toEqual({ datesChanged: false, agreementChanged: true, termsChanged: false, labelsChanged: true });
    expect(changesOf(access(), access({}, { purpose: "other" }))).toMatchObject({ agreementChanged: true, termsChanged: false, labelsChanged: false });
    expect(changesOf(access(), access({}, { nextReassessmentDate: "2027-01-01" }))).toMatchObject({ agreementChanged: false, termsChanged: true, labelsChanged: false });
    expect(changesOf(access(), access({}, { endDate: "2026-01-01" }))).toEqual({ datesChanged: true, agreementChanged: false, termsChanged: false, labelsChanged: false });
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
