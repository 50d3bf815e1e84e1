import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { diffDocument } from "./document-diff.js";
import { durationSeconds } from "./service-levels.js";

const load = (name: string) => parse(readFileSync(new URL(`../../test/fixtures/contracts/${name}`, import.meta.url), "utf8")) as Record<string, any>;
const changed = (before: Record<string, unknown>, after: Record<string, unknown>) => diffDocument(before, after).map((c) => [c.change, c.path, c.breaking]);
const edit = (doc: Record<string, any>, f: (d: Record<string, any>) => void) => {
  const copy = structuredClone(doc);
  f(copy);
  return copy;
};

describe("differences outside the models", () => {
  const odcs = load("odcs-payments.yaml");
  const dcs = load("dcs-1-orders-quality.yaml");

  it("finds none between a document and itself", () => {
    expect(diffDocument(odcs, structuredClone(odcs))).toEqual([]);
    expect(diffDocument(dcs, structuredClone(dcs))).toEqual([]);
  });

  it("given an ODCS SLA, when retention shortens, latency grows, availability drops or updates come less often, then each is breaking", () => {
    const after = edit(odcs, (d) => {
      d.slaProperties[0].value = 8; // latency 4 h → 8 h
      d.slaProperties[1].value = 1; // retention 3 y → 1 y
      d.slaProperties[2].value = 99; // availability 99.9 → 99
      d.slaProperties[3].unit = "w"; // frequency 1 d → 1 w
    });
    expect(changed(odcs, after)).toEqual([
      ["sla-weakened", "slaProperties[0]", true],
      ["sla-weakened", "slaProperties[1]", true],
      ["sla-weakened", "slaProperties[2]", true],
      ["sla-weakened", "slaProperties[3]", true],
    ]);
    expect(diffDocument(odcs, after)[1]).toMatchObject({ before: "3 y", after: "1 y", message: "The service level retention is weaker: 1 y instead of 3 y." });
  });

  it("given an ODCS SLA, when a promise strengthens or is added, then it is not breaking; when removed, it is", () => {
    const after = edit(odcs, (d) => {
      d.slaProperties[0].value = 1;
      d.slaProperties.splice(3, 1);
      d.slaProperties.push({ property: "throughput", value: 1000 });
    });
    expect(changed(odcs, after)).toEqual([
      ["sla-strengthened", "slaProperties[0]", false],
      ["sla-added", "slaProperties[3]", false],
      ["sla-removed", "slaProperties[3]", true],
    ]);
  });

  it("given a DCS service level, when retention shortens from P1Y to 6 months or the frequency goes from daily to weekly, then it is breaking", () => {
    const after = edit(dcs, (d) => {
      d.servicelevels.retention.period = "6 months";
      d.servicelevels.frequency.interval = "weekly";
      d.servicelevels.latency.threshold = "PT1H";
    });
    expect(changed(dcs, after)).toEqual([
      ["sla-weakened", "servicelevels.retention.period", true],
      ["sla-strengthened", "servicelevels.latency.threshold", false],
      ["sla-weakened", "servicelevels.frequency.interval", true],
    ]);
  });

  it("judges roles, servers, support and price by the rules table", () => {
    const after = edit(odcs, (d) => {
      d.roles.splice(1, 1); // payments_admin removed
      d.roles[0].firstLevelApprovers = "CFO";
      d.servers[0].host = "db2.example.com";
      d.servers.splice(1, 1);
      d.support.push({ channel: "tickets", tool: "ticket", url: "https://tickets.example.com" });
      d.price.priceAmount = 0.75;
      d.description.purpose = "Settled payments.";
      d.tags = ["finance"];
    });
    expect(changed(odcs, after)).toEqual([
      ["server-changed", "servers[0]", true],
      ["server-removed", "servers[1]", true],
      ["role-changed", "roles[0]", false],
      ["role-removed", "roles[1]", true],
      ["support-added", "support[2]", false],
      ["price-raised", "price", true],
      ["terms-changed", "description.purpose", false],
      ["member-added", "tags", false],
    ]);
  });

  it("lists every other member by its path, not breaking", () => {
    const after = edit(dcs, (d) => {
      d.info.version = "1.1.0";
      d.info.status = "active";
      d.info.contact.email = "orders@example.com";
      d.links = { docs: "https://example.com" };
      d.terms.usage = "Reporting and forecasting.";
    });
    expect(changed(dcs, after)).toEqual([
      ["support-changed", "info.contact", false],
      ["terms-changed", "terms.usage", false],
      ["member-added", "info.status", false],
      ["member-added", "links", false],
    ]);
  });

  it("reads durations as service levels write them", () => {
    expect(durationSeconds("P1Y")).toBe(365 * 86400);
    expect(durationSeconds("PT24H")).toBe(86400);
    expect(durationSeconds("25h")).toBe(25 * 3600);
    expect(durationSeconds("1 year")).toBe(365 * 86400);
    expect(durationSeconds(3, "d")).toBe(3 * 86400);
    expect(durationSeconds("daily")).toBe(86400);
    expect(durationSeconds("soon")).toBeUndefined();
    expect(durationSeconds("P")).toBeUndefined();
  });

  it("stays linear in deeply nested members: one visit per value", () => {
    let deep: Record<string, unknown> = { leaf: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])) };
    for (let i = 0; i < 150; i++) deep = { nested: deep };
    const before = { ...dcs, custom: deep };
    const after = structuredClone(before) as Record<string, any>;
    let node = after.custom;
    while (node.nested) node = node.nested;
    node.leaf.k19999 = -1;
    const started = performance.now();
    const changes = diffDocument(before, after);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ change: "member-changed", breaking: false, before: 19999, after: -1 });
    expect(changes[0].path).toMatch(/^custom(\.nested){150}\.leaf\.k19999$/);
  });
});
