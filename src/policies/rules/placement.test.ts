import { afterAll, describe, expect, it } from "vitest";
import { costOf, knownCostOf, prepareRules, type RuleToRun } from "./evaluate.js";
import type { Gate } from "./gates.js";
import { IN_PROCESS_BUDGET } from "./placement.js";
import { placeRules, RuleLimitExceeded, RuleRunner } from "./runner.js";

const rule = (condition: string, gates: Gate[] = ["access.request"], id = "r"): RuleToRun => ({ id, condition, gates });
const accessInput = (over: Record<string, unknown> = {}) => ({
  access: { id: "a1", info: { purpose: "Attribution", status: "requested" }, roles: ["reader"], tags: ["pii"], custom: { n: "3" }, ...over },
  product: { id: "orders" },
  port: { id: "pg", containsPii: true },
  contract: { id: "orders-v1", slaProperties: [{ property: "latency", value: 4 }] },
  consumer: { type: "team", teamId: "marketing", product: {} },
  requester: { principal: "api-key:x", scope: "team", teamIds: ["marketing"] },
  now: "2026-11-28T00:00:00Z",
});
/** Where the rule runs once this thread has compiled it. */
const where = (condition: string, input: Record<string, unknown> = accessInput(), gates?: Gate[]) => {
  prepareRules([rule(condition, gates)]);
  const { here } = placeRules({ rules: [rule(condition, gates)], inputs: [input] }, IN_PROCESS_BUDGET);
  return here.length === 1 ? "in process" : "thread";
};

describe("where a rule runs", () => {
  it("given rule texts, when placed over a small input, then those without macros, regular expressions or integer conversions of text run in process", () => {
    const table: Array<[string, "in process" | "thread"]> = [
      ["port.containsPii", "in process"],
      ["port.containsPii && !has(access.info.endDate)", "in process"],
      ["has(access.info.endDate) && timestamp(access.info.endDate) > timestamp(now) + duration('2160h')", "in process"],
      ["'pii' in access.tags && consumer.type == 'team'", "in process"],
      ["size(access.info.purpose) < 20 || access.info.purpose.startsWith('Attr')", "in process"],
      ["access.info.purpose + '!' == 'Attribution!' && access.info.purpose.contains('but')", "in process"],
      ["access.consumer == {'teamId': 'marketing'} || [1, 2] + [3] == [1, 2, 3]", "in process"],
      ["double(access.custom.n) > 2.0 && int('3') == 3 && string(size(access.roles)) == '1'", "in process"],
      ["requester.scope == 'team' ? access.consumer.teamId in requester.teamIds : true", "in process"],
      ["access.roles.exists(r, r == 'admin')", "thread"],
      ["access.roles.all(r, r != 'admin')", "thread"],
      ["access.roles.exists_one(r, r == 'admin')", "thread"],
      ["size(access.roles.map(r, r + r)) > 0", "thread"],
      ["size(access.tags.filter(t, t == 'pii')) > 0", "thread"],
      ["access.info.purpose.matches('^(a+)+$')", "thread"],
      ["int(access.custom.n) > 2", "thread"],
      ["uint(access.custom.n) > 2u", "thread"],
    ];
    expect(table.map(([condition]) => [condition, where(condition)])).toEqual(table);
  });

  it("given the table of docs/policies.md, when each rule is placed over a small input, then it runs where the table says", async () => {
    const { readFileSync } = await import("node:fs");
    const text = readFileSync(new URL("../../../docs/policies.md", import.meta.url), "utf8");
    const section = text.slice(text.indexOf("### Where rules run"), text.indexOf("## Gates and their input"));
    const rows = [...section.matchAll(/^\| `(.+)` \| (in process|rule thread)/gm)].map((m) => [m[1]!, m[2]!] as const);
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const [condition, expected] of rows) {
      const gates: Gate[] = /\bprevious\b/.test(condition) ? ["contract.publish"] : ["access.request"];
      const input = gates[0] === "contract.publish" ? { contract: { id: "c" }, previous: { id: "c" }, now: "2026-11-28T00:00:00Z" } : accessInput();
      expect(where(condition, input, gates), condition).toBe(expected === "in process" ? "in process" : "thread");
    }
  });

  it("given a macro, a regular expression or an integer conversion, then the reason is named", () => {
    expect(costOf(rule("access.roles.exists(r, r == 'admin')"))).toEqual({ thread: "macro" });
    expect(costOf(rule("access.info.purpose.matches('x')"))).toEqual({ thread: "regular expression" });
    expect(costOf(rule("int(access.custom.n) > 2"))).toEqual({ thread: "integer conversion of a non-literal" });
  });

  it("given a bounded rule, when its input is large, then it goes to the rule thread", () => {
    const big = Array.from({ length: 20_000 }, (_, i) => `tag-${i}`);
    expect(where("'pii' in access.tags")).toBe("in process");
    expect(where("'pii' in access.tags", accessInput({ tags: big }))).toBe("thread");
    // A large member the rule does not read leaves it in process.
    expect(where("port.containsPii", accessInput({ tags: big }))).toBe("in process");
  });

  it("given many bounded rules, when together they pass the budget, then the first ones stay in process and the rest go to the thread", () => {
    const tags = Array.from({ length: 100 }, (_, i) => `tag-${i}`);
    const rules = Array.from({ length: 40 }, (_, i) => rule(`'x${i}' in access.tags`, ["access.request"], `p${i}`));
    prepareRules(rules);
    const { here, there } = placeRules({ rules, inputs: [accessInput({ tags })] }, IN_PROCESS_BUDGET);
    expect(here.length).toBeGreaterThan(0);
    expect(there.length).toBeGreaterThan(0);
    expect([...here, ...there].sort((a, b) => a - b)).toEqual(rules.map((_, i) => i));
    expect(Math.max(...here)).toBeLessThan(Math.min(...there));
    // With no budget, every rule goes to the thread.
    expect(placeRules({ rules, inputs: [accessInput()] }, 0).here).toEqual([]);
  });
});

describe("rules this thread has not compiled", () => {
  const runner = new RuleRunner({ timeoutMs: 5000, memoryMb: 64, maxQueue: 10 });
  afterAll(() => runner.close());

  it("given a decision with new rules, when run, then they go to the rule thread, and this thread compiles them afterwards for the next decision", async () => {
    const rules = [rule("consumer.type == 'team' && size(access.roles) == 71", ["access.request"], "new"), rule(`access.info.purpose == '${"x".repeat(600)}'`, ["access.request"], "long")];
    const task = { rules, inputs: [accessInput()] };
    expect(placeRules(task, IN_PROCESS_BUDGET)).toMatchObject({ here: [], there: [0, 1], uncompiled: rules });
    expect(await runner.run(task)).toEqual([[{ id: "new", matched: false, read: { "access.roles": ["reader"], "consumer.type": "team" } }, { id: "long", matched: false, read: { "access.info.purpose": "Attribution" } }]]);
    for (let turn = 0; turn < 100 && knownCostOf(rules[0]!) === undefined; turn++) await new Promise((resolve) => setImmediate(resolve));
    // The rule past the length this thread compiles stays on the rule thread.
    expect(placeRules(task, IN_PROCESS_BUDGET)).toMatchObject({ here: [0], there: [1], uncompiled: [rules[1]] });
  }, 60_000);
});

describe("the same rules on both paths", () => {
  const mixed = new RuleRunner({ timeoutMs: 5000, memoryMb: 64, maxQueue: 10 });
  const threadOnly = new RuleRunner({ timeoutMs: 5000, memoryMb: 64, maxQueue: 10, inProcessBudget: 0 });
  afterAll(() => Promise.all([mixed.close(), threadOnly.close()]));

  it("given bounded and unbounded rules over several inputs, when run mixed and all on the thread, then the results are identical", async () => {
    const rules = [
      rule("port.containsPii && !has(access.info.endDate)", ["access.request"], "pii"),
      rule("access.roles.exists(r, r == 'admin')", ["access.request"], "admin"),
      rule("access.info.endDate == 'x'", ["access.request"], "missing"),
      rule("timestamp(access.info.endDate) > timestamp(now) + duration('2160h')", ["access.request"], "long"),
      rule("access.consumer == {'teamId': 'marketing'} && access.info.purpose.matches('^Attr')", ["access.request"], "regex"),
      rule("1 + 'a' == 2", ["access.request"], "broken"),
      rule("size(access.info.purpose) > 5 ? access.info : {'none': true}", ["access.request"], "not-bool"),
      rule("access.info == {'purpose': 'Attribution', 'status': 'requested'}", ["access.request"], "whole"),
    ];
    const inputs = [
      accessInput(),
      accessInput({ roles: ["admin"], info: { purpose: "Attribution", status: "requested", endDate: "2027-12-01T00:00:00Z" }, consumer: { teamId: "marketing" } }),
      { ...accessInput(), port: { containsPii: false } },
    ];
    prepareRules(rules);
    const { here, there } = placeRules({ rules, inputs }, IN_PROCESS_BUDGET);
    expect(here.map((i) => rules[i]!.id)).toEqual(["pii", "missing", "long", "broken", "not-bool", "whole"]);
    expect(there.map((i) => rules[i]!.id)).toEqual(["admin", "regex"]);

    const both = await mixed.run({ rules, inputs });
    expect(both).toEqual(await threadOnly.run({ rules, inputs }));
    expect(both[1]!.map((r) => [r.id, r.matched])).toEqual([["pii", false], ["admin", true], ["missing", false], ["long", true], ["regex", true], ["broken", true], ["not-bool", true], ["whole", false]]);
    // Values read come back as copies on either path.
    expect(both[0]!.find((r) => r.id === "whole")!.read["access.info"]).not.toBe(inputs[0]!.access.info);
    // A dry run's count of inputs with values read applies to both parts together.
    const limited = await mixed.run({ rules, inputs, reads: 1 });
    expect(limited).toEqual(await threadOnly.run({ rules, inputs, reads: 1 }));
    expect(limited[1]!.every((r) => Object.keys(r.read).length === 0)).toBe(true);
  }, 60_000);
});

describe("the limits, with rules in process", () => {
  const runner = new RuleRunner({ timeoutMs: 300, memoryMb: 64, maxQueue: 10 });
  afterAll(() => runner.close());

  it("given a bounded rule whose input makes it costly, when run, then it goes to the thread and is stopped by the time limit while the server keeps turning", async () => {
    const members = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, { v: [i] }]));
    const input = { contract: members, previous: { ...members }, now: "2026-11-28T00:00:00Z" };
    const condition = `contract != previous${" || contract != previous".repeat(150)}`;
    const task = { rules: [rule(condition, ["contract.publish"])], inputs: [input] };
    prepareRules(task.rules);
    expect(placeRules(task, IN_PROCESS_BUDGET).there).toEqual([0]);
    let turned = false;
    setTimeout(() => (turned = true), 1);
    await expect(runner.run(task)).rejects.toBeInstanceOf(RuleLimitExceeded);
    expect(turned).toBe(true);
  }, 60_000);

  it("given a hostile macro beside bounded rules, when run, then the whole decision is refused by the limit and the next one is served", async () => {
    const ten = "[0,1,2,3,4,5,6,7,8,9]";
    const hostile = `${ten}.map(a, ${ten}.map(b, ${ten}.map(c, ${ten}.map(d, ${ten}.map(e, ${ten}.map(f, ${ten}.map(g, 'x'))))))).size() > 0`;
    const input = { contract: { id: "c" }, previous: {}, now: "2026-11-28T00:00:00Z" };
    const rules = [rule("has(contract.id)", ["contract.publish"], "ok"), rule(hostile, ["contract.publish"], "hostile")];
    prepareRules(rules);
    await expect(runner.run({ rules, inputs: [input] })).rejects.toBeInstanceOf(RuleLimitExceeded);
    expect(await runner.run({ rules: [rules[0]!], inputs: [input] })).toEqual([[{ id: "ok", matched: true, read: { "contract.id": "c" } }]]);
  }, 60_000);
});
