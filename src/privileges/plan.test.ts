import { describe, expect, it } from "vitest";
import { contractInput, portInput } from "./inputs.js";
import { decideColumn, planPrivileges, type PlanInput } from "./plan.js";

const ANY = Number.POSITIVE_INFINITY;

const orders = {
  name: "orders",
  columns: [
    { name: "id", classification: "public" },
    { name: "amount", classification: "internal" },
    { name: "email", classification: "confidential" },
    { name: "card", classification: "restricted" },
    { name: "note" },
  ],
};

const given = (over: Partial<PlanInput> = {}): PlanInput => ({
  accessId: "a1",
  roles: [],
  port: { server: "warehouse", schema: "shop", table: "orders" },
  contract: {
    id: "orders-v1",
    version: "1.0.0",
    roles: [
      { role: "analyst", maxClassification: "internal", maskClassification: "confidential" },
      { role: "auditor", maxClassification: "confidential" },
      { role: "open" },
    ],
    tables: [orders, { name: "customers", columns: [{ name: "id" }] }],
  },
  ...over,
});

const decisions = (input: PlanInput) =>
  Object.fromEntries(planPrivileges(input).objects.flatMap((o) => o.columns.map((c) => [`${o.table}.${c.name}`, c.decision])));

describe("column rules", () => {
  // given a classification and a ceiling (levels: public 0, internal 1, confidential 2, restricted 3), then the decision
  const cases: Array<[string | undefined, { clear: number; masked: number }, string, string]> = [
    ["restricted", { clear: ANY, masked: ANY }, "granted", "no-ceiling"],
    ["PII", { clear: ANY, masked: ANY }, "granted", "no-ceiling"],
    ["PII", { clear: 3, masked: 3 }, "withheld", "unknown-classification"],
    [undefined, { clear: 0, masked: 0 }, "granted", "within-clear"],
    [undefined, { clear: -1, masked: -1 }, "withheld", "above-ceiling"],
    ["Internal", { clear: 1, masked: 1 }, "granted", "within-clear"],
    ["confidential", { clear: 1, masked: 2 }, "masked", "within-masked"],
    ["restricted", { clear: 1, masked: 2 }, "withheld", "above-ceiling"],
    ["public", { clear: -1, masked: -1 }, "withheld", "above-ceiling"],
  ];
  it.each(cases)("a column classified %s under %o is %s (%s)", (classification, ceiling, decision, rule) => {
    expect(decideColumn(classification, ceiling)).toMatchObject({ decision, rule });
  });
});

describe("the privileges plan", () => {
  it("without roles or a port ceiling grants every column, as a plain grant does", () => {
    const plan = planPrivileges(given());
    expect(plan.ceiling).toMatchObject({ clear: "any", masked: "any" });
    expect(plan.objects).toEqual([expect.objectContaining({ server: "warehouse", schema: "shop", table: "orders", scope: "table" })]);
    expect(plan.objects[0]!.columns.every((c) => c.decision === "granted")).toBe(true);
  });

  it("without a contract grants the port's object whole, and says why", () => {
    const plan = planPrivileges(given({ contract: null, port: { server: "warehouse", schema: "shop" } }));
    expect(plan.objects).toEqual([{ server: "warehouse", schema: "shop", table: null, scope: "schema", columns: [] }]);
    expect(plan.notes[0]).toMatch(/granted whole/);
  });

  it("a schema port with nothing restricted stays a whole-schema grant", () => {
    const plan = planPrivileges(given({ port: { server: "warehouse", schema: "shop" } }));
    expect(plan.objects).toEqual([{ server: "warehouse", schema: "shop", table: null, scope: "schema", columns: [] }]);
  });

  it("a port's maxClassification withholds what is above it", () => {
    expect(decisions(given({ port: { server: "w", schema: "shop", table: "orders", maxClassification: "internal" } }))).toEqual({
      "orders.id": "granted",
      "orders.amount": "granted",
      "orders.email": "withheld",
      "orders.card": "withheld",
      "orders.note": "granted",
    });
  });

  it("a role's mask ceiling masks the levels between its two ceilings", () => {
    const plan = planPrivileges(given({ roles: ["analyst"] }));
    expect(decisions(given({ roles: ["analyst"] }))).toMatchObject({ "orders.email": "masked", "orders.card": "withheld" });
    expect(plan.objects[0]!.scope).toBe("columns");
    expect(plan.objects[0]!.columns.find((c) => c.name === "email")!.reason).toBe(
      "Classified 'confidential', above the ceiling 'internal' but within the masked ceiling 'confidential'.",
    );
    expect(plan.ceiling.reasons).toContain("Role 'analyst' allows up to 'internal', masked up to 'confidential'.");
  });

  it("several roles allow what any of them allows, and the port still caps them", () => {
    expect(decisions(given({ roles: ["analyst", "auditor"] }))).toMatchObject({ "orders.email": "granted", "orders.card": "withheld" });
    expect(decisions(given({ roles: ["auditor"], port: { server: "w", schema: "shop", table: "orders", maxClassification: "public" } }))).toMatchObject({
      "orders.id": "granted",
      "orders.amount": "withheld",
      "orders.email": "withheld",
    });
    // A role without a ceiling adds none, so the port's alone applies.
    expect(decisions(given({ roles: ["open"], port: { server: "w", schema: "shop", table: "orders", maxClassification: "internal" } }))).toMatchObject({ "orders.email": "withheld" });
  });

  it("roles the contract does not define allow nothing (fail closed), and are named", () => {
    const plan = planPrivileges(given({ roles: ["superuser"] }));
    expect(plan.objects[0]!.scope).toBe("none");
    expect(plan.roles).toEqual([{ role: "superuser", defined: false, maxClassification: null, maskClassification: null }]);
    expect(plan.notes).toContain("The role 'superuser' is not defined by the data contract; it allows nothing.");
    const noContract = planPrivileges(given({ roles: ["superuser"], contract: null }));
    expect(noContract.objects[0]!.scope).toBe("none");
  });

  it("a ceiling outside the scheme lets no classified column through", () => {
    const plan = planPrivileges(given({ port: { server: "w", schema: "shop", table: "orders", maxClassification: "secret" } }));
    expect(plan.objects[0]!.scope).toBe("none");
    expect(plan.notes[0]).toMatch(/'secret' is not a level/);
  });

  it("a restricted schema port lists the contract's tables one by one, in code-point order", () => {
    const plan = planPrivileges(given({ roles: ["analyst"], port: { server: "w", schema: "shop" } }));
    expect(plan.objects.map((o) => [o.table, o.scope])).toEqual([
      ["customers", "table"],
      ["orders", "columns"],
    ]);
    expect(plan.notes).toContain("Tables of schema 'shop' that the data contract does not describe are not granted.");
  });

  it("a port without server and schema plans nothing", () => {
    expect(planPrivileges(given({ port: {} })).objects).toEqual([]);
  });

  it("is byte-identical for the same inputs, whatever order the roles come in", () => {
    const a = JSON.stringify(planPrivileges(given({ roles: ["auditor", "analyst", "auditor"] })));
    const b = JSON.stringify(planPrivileges(given({ roles: ["analyst", "auditor"] })));
    expect(a).toBe(b);
    expect(JSON.stringify(planPrivileges(given({ roles: ["analyst"] })))).toBe(JSON.stringify(planPrivileges(given({ roles: ["analyst"] }))));
  });
});

describe("reading the documents", () => {
  it("reads an ODCS contract's roles, ceilings and classified columns, and a port's custom properties", () => {
    const contract = contractInput("c1", {
      apiVersion: "v3.1.0",
      kind: "DataContract",
      id: "c1",
      version: "2.0.0",
      status: "active",
      roles: [{ role: "analyst", access: "read", customProperties: [{ property: "maxClassification", value: "internal" }] }, { nope: 1 }],
      schema: [{ name: "orders", properties: [{ name: "id", logicalType: "integer" }, { name: "email", logicalType: "string", classification: "confidential" }] }],
    });
    expect(contract).toEqual({
      id: "c1",
      version: "2.0.0",
      roles: [{ role: "analyst", access: "read", maxClassification: "internal" }],
      tables: [{ name: "orders", columns: [{ name: "id" }, { name: "email", classification: "confidential" }] }],
    });
    expect(portInput({ id: "p", server: { host: "warehouse", schema: "shop", table: "orders" }, customProperties: [{ property: "maxClassification", value: "public" }] })).toEqual({
      server: "warehouse",
      schema: "shop",
      table: "orders",
      maxClassification: "public",
    });
  });

  it("names tables and columns by their ODCS physicalName when they have one, and plans them by that name", () => {
    const doc = {
      apiVersion: "v3.1.0",
      kind: "DataContract",
      id: "c1",
      version: "1.0.0",
      status: "active",
      roles: [{ role: "analyst", customProperties: [{ property: "maxClassification", value: "internal" }, { property: "maskClassification", value: "confidential" }] }],
      schema: [
        {
          name: "customers",
          physicalName: "tbl_customers",
          properties: [
            { name: "id", physicalName: "cust_id", logicalType: "integer", classification: "public" },
            { name: "email", physicalName: "cust_email", logicalType: "string", classification: "confidential" },
            { name: "ssn", logicalType: "string", classification: "restricted" },
          ],
        },
        { name: "orders", properties: [{ name: "id", logicalType: "integer" }] },
      ],
    };
    const contract = contractInput("c1", doc);
    expect(contract.tables).toEqual([
      { name: "tbl_customers", columns: [{ name: "cust_id", classification: "public" }, { name: "cust_email", classification: "confidential" }, { name: "ssn", classification: "restricted" }] },
      { name: "orders", columns: [{ name: "id" }] },
    ]);
    const input = given({ roles: ["analyst"], port: { server: "warehouse", schema: "shop", table: "tbl_customers" }, contract });
    expect(decisions(input)).toEqual({ "tbl_customers.cust_id": "granted", "tbl_customers.cust_email": "masked", "tbl_customers.ssn": "withheld" });
    expect(JSON.stringify(planPrivileges(input))).toBe(JSON.stringify(planPrivileges(given({ roles: ["analyst"], port: input.port, contract: contractInput("c1", doc) }))));
    // A whole-schema port plans the tables by their physical names, in code-point order.
    expect(planPrivileges(given({ roles: ["analyst"], port: { server: "warehouse", schema: "shop" }, contract })).objects.map((o) => o.table)).toEqual(["orders", "tbl_customers"]);
  });
});
