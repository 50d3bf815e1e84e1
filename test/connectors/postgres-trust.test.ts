import { describe, expect, it } from "vitest";
import { parseConnectorConfig } from "../../src/connectors/postgres/config.js";
import { findPort, serverReference } from "../../src/connectors/postgres/catalog.js";
import { decideTarget, Refusal, roleFor } from "../../src/connectors/postgres/trust.js";

const config = parseConnectorConfig({
  servers: {
    warehouse: {
      connection: { host: "10.0.0.5", database: "shop", user: "grants" },
      grantable: [
        { team: "sales", schema: "orders" },
        { team: "finance", schema: "finance", table: "invoices" },
      ],
    },
  },
  ledger: { server: "warehouse" },
});

describe("which grants the connector's configuration allows", () => {
  const cases: [what: string, owner: string | undefined, reference: Record<string, string>, outcome: string | RegExp][] = [
    ["a whole schema mapped to the owner", "sales", { name: "warehouse", schema: "orders" }, "warehouse orders *"],
    ["a table of a whole schema mapped to the owner", "sales", { name: "warehouse", schema: "orders", table: "lines" }, "warehouse orders lines"],
    ["the configured database named by the port", "sales", { name: "warehouse", database: "shop", schema: "orders" }, "warehouse orders *"],
    ["a table mapped to the owner", "finance", { name: "warehouse", schema: "finance", table: "invoices" }, "warehouse finance invoices"],
    ["another table of a schema mapped by table only", "finance", { name: "warehouse", schema: "finance", table: "salaries" }, /may not grant table 'finance.salaries'/],
    ["the whole schema when only a table is mapped", "finance", { name: "warehouse", schema: "finance" }, /may not grant schema 'finance'/],
    ["another team's schema", "marketing", { name: "warehouse", schema: "orders" }, /Team 'marketing' may not grant/],
    ["an unmapped schema", "sales", { name: "warehouse", schema: "finance_private", table: "salaries" }, /may not grant table 'finance_private.salaries'/],
    ["an unconfigured server", "sales", { name: "evil.example.com", schema: "orders" }, /'evil.example.com' is not in the connector's configuration/],
    ["another database on the server", "sales", { name: "warehouse", database: "postgres", schema: "orders" }, /names database 'postgres'/],
    ["no server name", "sales", { schema: "orders" }, /needs host/],
    ["no schema", "sales", { name: "warehouse" }, /needs host .* and schema/],
    ["no owner", undefined, { name: "warehouse", schema: "orders" }, /names no owner team/],
  ];
  for (const [what, owner, reference, outcome] of cases) {
    it(`${typeof outcome === "string" ? "grants" : "refuses"} ${what}`, () => {
      const decide = () => decideTarget(config, owner, reference, "steward_team_x");
      if (typeof outcome === "string") {
        const t = decide();
        expect(`${t.server} ${t.schema} ${t.table ?? "*"}`).toBe(outcome);
        expect(t.role).toBe("steward_team_x");
      } else {
        expect(decide).toThrow(Refusal);
        expect(decide).toThrow(outcome);
      }
    });
  }
});

it("keeps a reason short whatever the document wrote", () => {
  expect(() => decideTarget(config, "sales", { name: "h".repeat(100_000), schema: "orders" }, "r")).toThrow(/^The server 'h{120}…' is not/);
});

describe("role names", () => {
  it("keep a plain id readable and fold anything else into the steward_ prefix with a hash", () => {
    expect(roleFor({ team: "sales" })).toBe("steward_team_sales");
    expect(roleFor({ user: "ada" })).toBe("steward_user_ada");
    const folded = roleFor({ team: 'x"; DROP ROLE postgres; --' });
    expect(folded).toMatch(/^steward_team_x___drop_role_postgres____\$[0-9a-f]{10}$/);
    for (const id of ["postgres", "../admin", "Sales", "a".repeat(300), "ada@example.com", "a-b", "a_b"]) {
      const role = roleFor({ team: id });
      expect(role.startsWith("steward_team_")).toBe(true);
      expect(Buffer.byteLength(role)).toBeLessThanOrEqual(63);
    }
  });

  it("never give two ids, or a team and a user, the same role", () => {
    const ids = ["a-b", "a_b", "A_B", "a.b", "Sales", "sales", "a".repeat(40), "a".repeat(41)];
    const teams = ids.map((id) => roleFor({ team: id }));
    expect(new Set(teams).size).toBe(ids.length);
    // An id spelled like another id's folded role still differs: `$` never survives folding.
    const hashed = roleFor({ team: "a-b" }).slice("steward_team_".length);
    expect(roleFor({ team: hashed.replace("$", "_") })).not.toBe(roleFor({ team: "a-b" }));
    expect(roleFor({ team: "ada" })).not.toBe(roleFor({ user: "ada" }));
  });
});

describe("the port's server reference", () => {
  it("reads server (DPS) and the custom property server (ODPS) the same way, and only strings", () => {
    const dps = { info: { owner: "sales" }, outputPorts: [{ id: "p", type: "postgres", server: { host: "warehouse", schema: "orders", table: 5 } }] };
    expect(serverReference(findPort(dps, "p")!)).toEqual({ name: "warehouse", database: undefined, schema: "orders", table: undefined });
    const odps = {
      apiVersion: "v1.0.0",
      kind: "DataProduct",
      team: { name: "sales" },
      outputPorts: [
        { name: "p", version: "1", type: "postgres", customProperties: [{ property: "server", value: { host: "warehouse", schema: "orders" } }] },
        { name: "p", version: "2", type: "postgres" },
      ],
    };
    expect(serverReference(findPort(odps, "p@1")!)).toMatchObject({ name: "warehouse", schema: "orders" });
    expect(findPort(odps, "p")).toBeUndefined(); // two versions: the access must say which
  });
});

describe("the configuration file", () => {
  const valid = { servers: { w: { connection: { host: "h", database: "d", user: "u" } } }, ledger: { server: "w" } };
  const problem = (raw: unknown, env: Record<string, string> = {}) => {
    try {
      parseConnectorConfig(raw, env, "pg.yaml");
    } catch (error) {
      return (error as Error).message;
    }
    return "valid";
  };

  it("fills in defaults", () => {
    const c = parseConnectorConfig(valid, {});
    expect(c.servers.get("w")!.connection.port).toBe(5432);
    expect(c.ledger).toEqual({ server: "w", schema: "steward_connector" });
    expect(c.timeouts).toEqual({ connectMs: 10_000, statementMs: 30_000, lockMs: 5_000 });
  });

  it("names the member that is wrong", () => {
    expect(problem({ ...valid, servers: { "db.internal": { connection: { host: "h", database: "d", user: "u", port: "5432" } } } })).toMatch(
      /pg.yaml is not valid:[\s\S]*servers\["db.internal"\]\.connection\.port: Expected integer/,
    );
    expect(problem({ ...valid, timeouts: { connectMs: 0 } })).toMatch(/timeouts\.connectMs: Expected integer to be greater or equal to 1/);
    expect(problem({ ...valid, servers: { w: { connection: { host: "h", database: "d", user: "u" }, grantable: [{ team: "t" }] } } })).toMatch(/servers\.w\.grantable\[0\]\.schema: Expected required property/);
    expect(problem({ ...valid, host: "h" })).toMatch(/^ {2}host: Unexpected property$/m);
    expect(problem({ ...valid, ledger: { server: "nope" } })).toMatch(/ledger\.server names "nope", which is not one of servers \(w\)/);
    expect(problem({ servers: { w: { connection: { host: "h", database: "d", user: "u", passwordEnv: "PW" } } }, ledger: { server: "w" } })).toMatch(/passwordEnv names PW, which is not set/);
    expect(problem([])).toMatch(/is not valid/);
  });

  it("takes a password from the variable passwordEnv names", () => {
    const c = parseConnectorConfig({ servers: { w: { connection: { host: "h", database: "d", user: "u", passwordEnv: "PW" } } }, ledger: { server: "w" } }, { PW: "s3cret" });
    expect(c.servers.get("w")!.connection.password).toBe("s3cret");
  });
});
