import { describe, expect, it } from "vitest";
import { findDrift, type CatalogState, type DriftInput, type Privilege } from "./drift.js";
import { maskViewName } from "./grants.js";
import type { Target } from "./trust.js";

const role = "steward_team_bi";
const columns: Target = { server: "w", schema: "shop", table: "people", role, grants: [{ table: "people", columns: ["id", "name"], masked: ["email"] }] };
const whole: Target = { server: "w", schema: "shop", table: null, role: "steward_team_ops" };
const view = maskViewName(role, "shop", "people");

const held = (extra: Privilege[] = [], without: string[] = []): Privilege[] =>
  (<Privilege[]>[
    { role, on: "schema", schema: "shop", privilege: "USAGE" },
    { role, on: "column", schema: "shop", table: "people", column: "id", privilege: "SELECT" },
    { role, on: "column", schema: "shop", table: "people", column: "name", privilege: "SELECT" },
    { role, on: "schema", schema: "masks", privilege: "USAGE" },
    { role, on: "table", schema: "masks", table: view, privilege: "SELECT" },
    { role: "steward_team_ops", on: "schema", schema: "shop", privilege: "USAGE" },
    { role: "steward_team_ops", on: "table", schema: "shop", table: "people", privilege: "SELECT" },
    { role: "steward_team_ops", on: "table", schema: "shop", table: "orders", privilege: "SELECT" },
    ...extra,
  ]).filter((p) => !without.includes(p.column ?? p.table ?? p.schema));

const catalog = (over: Partial<CatalogState> = {}): CatalogState => ({
  roles: new Set([role, "steward_team_ops"]),
  privileges: held(),
  tables: new Map([["shop", ["orders", "people"]]]),
  changedViews: new Set(),
  ...over,
});

const given = (over: Partial<DriftInput> = {}): DriftInput => ({
  entries: [
    { accessId: "a1", target: columns },
    { accessId: "a2", target: whole },
  ],
  desired: new Map([
    ["a1", columns],
    ["a2", whole],
  ]),
  catalog: catalog(),
  maskSchema: "masks",
  ...over,
});

const kinds = (input: DriftInput) => findDrift(input).map((d) => `${d.kind} ${d.accessIds.join(",")}: ${d.what}`);

describe("drift", () => {
  it("finds none when the catalogs hold exactly what the ledger recorded for the active accesses", () => {
    expect(findDrift(given())).toEqual([]);
  });

  it("a privilege added by hand to a managed role is extra, on each active access of the role", () => {
    const extra: Privilege = { role, on: "column", schema: "shop", table: "people", column: "ssn", privilege: "SELECT" };
    expect(kinds(given({ catalog: catalog({ privileges: held([extra]) }) }))).toEqual([
      `extra-privilege a1: SELECT on column shop.people.ssn for role ${role}, which no grant of the connector holds`,
    ]);
  });

  it("a privilege revoked by hand is missing", () => {
    expect(kinds(given({ catalog: catalog({ privileges: held([], ["name"]) }) }))).toEqual([`missing-privilege a1: SELECT on column shop.people.name for role ${role} is missing`]);
  });

  it("a table added to a whole-schema grant's schema is missing its SELECT", () => {
    const tables = new Map([["shop", ["orders", "people", "returns"]]]);
    expect(kinds(given({ catalog: catalog({ tables }) }))).toEqual(["missing-privilege a2: SELECT on table shop.returns for role steward_team_ops is missing"]);
  });

  it("a dropped role is one drift per access, not one per privilege", () => {
    const privileges = held().filter((p) => p.role !== role);
    expect(kinds(given({ catalog: catalog({ roles: new Set(["steward_team_ops"]), privileges }) }))).toEqual([`dropped-role a1: role ${role} of access a1 no longer exists`]);
  });

  it("a grant whose access is no longer active is left for an ended access, not extra", () => {
    expect(kinds(given({ desired: new Map([["a2", whole]]) }))).toEqual(["ended-access a1: a grant left for ended access a1"]);
  });

  it("an active access whose plan changed, or that has no grant at all, is found", () => {
    const narrower: Target = { ...columns, grants: [{ table: "people", columns: ["id"], masked: [] }] };
    const desired = new Map<string, Target | null>([
      ["a1", narrower],
      ["a2", whole],
      ["a3", { ...whole, role: "steward_team_new" }],
    ]);
    expect(findDrift(given({ desired })).map((d) => [d.kind, d.accessIds])).toEqual([
      ["replanned", ["a1"]],
      ["missing-privilege", ["a3"]],
    ]);
  });

  it("a masking view changed by hand is found", () => {
    expect(kinds(given({ catalog: catalog({ changedViews: new Set([`masks.${view}`]) }) }))).toEqual([`changed-mask-view a1: masking view masks.${view} was changed`]);
  });

  it("a configured login no longer in its role is a removed membership, on each active access of the role", () => {
    const members = [{ role, member: "alice" }, { role, member: "ghost" }];
    const memberships = [{ role: "steward_team_ops", member: "bob" }];
    // ghost is configured but has no login: nothing to give back.
    expect(kinds(given({ members, catalog: catalog({ memberships, logins: new Set(["alice"]) }) }))).toEqual([
      `removed-membership a1: login alice is no longer a member of role ${role}`,
      `extra-membership a2: bob was made a member of role steward_team_ops, which the configuration does not list`,
    ]);
  });

  it("a managed role made a member of another role is extra; a login's membership is the operator's when none is configured", () => {
    const memberships = [
      { role: "pg_read_all_data", member: role },
      { role, member: "alice" },
    ];
    expect(kinds(given({ catalog: catalog({ memberships }) }))).toEqual([`extra-membership a1: role ${role} was made a member of role pg_read_all_data, which the connector never does`]);
  });
});
