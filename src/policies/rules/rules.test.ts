import { afterAll, describe, expect, it } from "vitest";
import { compileRule } from "./check.js";
import { evaluateRules, runTask } from "./evaluate.js";
import { variablesOf } from "./gates.js";
import { RuleLimitExceeded, RuleRunner } from "./runner.js";

const access = variablesOf(["access.request"]);
const contract = variablesOf(["contract.publish"]);
const errorsOf = (text: string, vars = access) => {
  const c = compileRule(text, vars);
  return c.ok ? [] : c.errors;
};

describe("compiling a rule", () => {
  it("given a rule over the gate's input, when compiled, then it answers the paths it reads", () => {
    const c = compileRule("port.containsPii == true && !has(access.info.endDate)", access);
    expect(c.ok && c.reads).toEqual(["access.info.endDate", "port.containsPii"]);
  });

  it("given a syntax error, then it names its line and column", () => {
    expect(errorsOf("port.containsPii ==\n  && true")).toEqual([{ message: expect.stringContaining("syntax error"), line: 1, column: 18 }]);
    expect(errorsOf("true &&\n  port.containsPii == )")).toEqual([{ message: expect.stringContaining("syntax error"), line: 2, column: 20 }]);
  });

  it("given a name outside the input, a type mismatch, an unknown function or a non-bool answer, then each is refused at its position", () => {
    expect(errorsOf("contrat.x == 1")[0]).toMatchObject({ message: expect.stringContaining("undeclared reference to 'contrat'"), line: 1, column: 1 });
    expect(errorsOf("port.x == 1 && 1 + 'a' == 2")[0]).toMatchObject({ message: expect.stringContaining("no matching overload for '+' applied to (int, string)"), column: expect.any(Number) });
    expect(errorsOf("port.x == 1 && 1 + 'a' == 2")[0]!.column).toBeGreaterThan(15);
    expect(errorsOf("http('x')")[0]!.message).toContain("undeclared function 'http'");
    expect(errorsOf("size(port) > 0")).toEqual([]);
    expect(errorsOf("1 + 2")[0]!.message).toContain("must answer true or false, not a int");
    // `access` is not part of a contract's input.
    expect(errorsOf("access.id == 'x'", contract)[0]!.message).toContain("undeclared reference to 'access'");
    // Comprehension variables are in scope in their macro only.
    expect(errorsOf("access.roles.exists(r, r == 'admin')")).toEqual([]);
    expect(errorsOf("access.roles.exists(r, r == 'admin') && r == 'x'")[0]!.message).toContain("'r'");
  });

  it("given brackets nested past the limit or a rule past its length, then it is refused before parsing", () => {
    expect(errorsOf(`${"(".repeat(5000)}true${")".repeat(5000)}`)[0]!.message).toMatch(/too long|characters long|nest/);
    expect(errorsOf(`${"(".repeat(40)}true${")".repeat(40)}`)[0]!.message).toContain("nest deeper than 32");
  });
});

describe("evaluating rules", () => {
  it("given an input, then each rule answers whether it matched and the values it read", () => {
    const input = { access: { info: { purpose: "x" } }, port: { containsPii: true }, product: {}, contract: {}, consumer: {}, requester: {}, now: "2026-01-01T00:00:00Z" };
    const [pii, dated, broken] = evaluateRules(
      [
        { id: "pii", condition: "port.containsPii == true", gates: ["access.request"] },
        { id: "dated", condition: "has(access.info.endDate) && timestamp(access.info.endDate) > timestamp(now) + duration('2160h')", gates: ["access.request"] },
        { id: "broken", condition: "access.info.endDate == 'x'", gates: ["access.request"] },
      ],
      input,
    );
    expect(pii).toEqual({ id: "pii", matched: true, read: { "port.containsPii": true } });
    expect(dated).toEqual({ id: "dated", matched: false, read: { "access.info.endDate": null, now: "2026-01-01T00:00:00Z" } });
    // A rule that cannot be decided fails closed, saying why.
    expect(broken).toMatchObject({ matched: true, error: expect.stringContaining("evaluation failed") });
  });
});

describe("values read for a judgement", () => {
  it("given a task that needs the values read of matched rules only, then the rules that did not match carry none", () => {
    const input = { contract: { id: "c", description: { purpose: "x" } }, previous: {}, now: "2026-01-01T00:00:00Z" };
    const rules = [
      { id: "held", condition: "has(contract.description)", gates: ["contract.publish" as const] },
      { id: "passed", condition: "size(contract.id) > 5", gates: ["contract.publish" as const] },
      { id: "failed", condition: "contract.missing == 1", gates: ["contract.publish" as const] },
    ];
    const [[held, passed, failed]] = runTask({ rules, inputs: [input], matchedReadsOnly: true });
    expect(held).toEqual({ id: "held", matched: true, read: { "contract.description": { purpose: "x" } } });
    expect(passed).toEqual({ id: "passed", matched: false, read: {} });
    expect(failed).toMatchObject({ matched: true, read: { "contract.missing": null } });
    expect(runTask({ rules, inputs: [input] })[0]![1]).toEqual({ id: "passed", matched: false, read: { "contract.id": "c" } });
  });
});

describe("the runner's cost limits", () => {
  const runner = new RuleRunner({ timeoutMs: 1500, memoryMb: 32, maxQueue: 10 });
  afterAll(() => runner.close());
  const input = { contract: { items: [1, 2, 3] }, previous: {}, now: "2026-01-01T00:00:00Z" };
  const ten = "[0,1,2,3,4,5,6,7,8,9]";

  it("given hostile rules, when run, then each is stopped by a limit and the runner still serves the next", async () => {
    const hostile = [
      // A million elements, then a hundred million.
      `${ten}.map(a, ${ten}.map(b, ${ten}.map(c, ${ten}.map(d, ${ten}.map(e, ${ten}.map(f, ${ten}.map(g, ${ten}.map(h, 'x')))))))).size() > 0`,
      // Huge strings built from doubled parts.
      `${ten}.map(a, ${ten}.map(b, ${ten}.map(c, ${ten}.map(d, ${ten}.map(e, ${ten}.map(f, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' + 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy')))))) != []`,
    ];
    for (const condition of hostile) {
      const started = Date.now();
      await expect(runner.run({ rules: [{ id: "h", condition, gates: ["contract.publish"] }], inputs: [input] })).rejects.toBeInstanceOf(RuleLimitExceeded);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    const [[ok]] = await runner.run({ rules: [{ id: "ok", condition: "size(contract.items) == 3", gates: ["contract.publish"] }], inputs: [input] });
    expect(ok).toMatchObject({ matched: true });
  }, 60_000);
});

describe("the runner's time limit", () => {
  it("given many rules a new thread has not compiled, when run, then compiling them does not count against the evaluation's limit", async () => {
    // Compiling these (each holds a list of 300 numbers) takes several times the limit below;
    // evaluating them takes a small part of it, as the list is never reached.
    const runner = new RuleRunner({ timeoutMs: 400, memoryMb: 64, maxQueue: 10 });
    try {
      const numbers = Array.from({ length: 300 }, (_, j) => j).join(",");
      const rules = Array.from({ length: 150 }, (_, i) => ({
        id: `r${i}`,
        condition: `size(contract.items) == ${i} || (size(contract.items) > 100 && [${numbers}].exists(x, x == ${i}))`,
        gates: ["contract.publish" as const],
      }));
      const [results] = await runner.run({ rules, inputs: [{ contract: { items: [1, 2, 3] }, previous: {}, now: "2026-01-01T00:00:00Z" }] });
      expect(results).toHaveLength(150);
      expect(results!.filter((r) => r.matched).map((r) => r.id)).toEqual(["r3"]);
    } finally {
      await runner.close();
    }
  }, 60_000);
});

describe("the example rules of docs/policies.md", () => {
  it("given each example, when compiled at its gates, then it compiles", async () => {
    const { readFileSync } = await import("node:fs");
    const text = readFileSync(new URL("../../../docs/policies.md", import.meta.url), "utf8");
    const rows = text.split("\n").filter((line) => /^\| \d+ \|/.test(line));
    expect(rows.length).toBeGreaterThanOrEqual(12);
    for (const row of rows) {
      const cells = row.replace(/\\\|/g, "\u0001").split("|").map((c) => c.trim().replace(/\u0001/g, "|"));
      const gates = [...cells[2]!.matchAll(/`([a-z.]+)`/g)].map((m) => m[1]) as Parameters<typeof variablesOf>[0];
      for (const condition of [...cells[4]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)) {
        const compiled = compileRule(condition, variablesOf(gates));
        expect(compiled.ok ? [] : compiled.errors, `${cells[1]}: ${condition}`).toEqual([]);
      }
    }
  });
});
