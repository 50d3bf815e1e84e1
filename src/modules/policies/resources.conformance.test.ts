import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { referenceViolations } from "../../../test/helpers/reference.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

/** Policies, classification schemes and certifications answer in the reference product's shapes. */
describe.each(DATABASES)("governance resources against the reference (%s)", (kind) => {
  const t = suiteServer(kind);

  it("answers each resource and list in the reference shape", async () => {
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ["/api/policies", "GLOBAL-1", { name: "Data Quality", status: "Accepted", content: "All data products must have data quality checks.", rule: { condition: "has(contract.quality)", effect: "warn", gates: ["contract.publish"] } }],
      ["/api/classification-schemes", "classification", { externalId: "classification", name: "Classification", customProperty: "classification", rank: 1, classifications: [{ externalId: "sensitive", name: "Sensitive", level: 4, colorScheme: "red" }] }],
      ["/api/certifications", "6a0b8f38-4b1c-4f57-9a39-4f0a4d1d2a11", { id: "6a0b8f38-4b1c-4f57-9a39-4f0a4d1d2a11", name: "Gold", rank: 1, tag: "certification-gold", icon: "star", restricted: false }],
    ];
    for (const [base, id, body] of cases) {
      const put = await t.api("PUT", `${base}/${id}`, body);
      expect(put.status, put.text).toBe(200);
      const one = base === "/api/classification-schemes" ? `${base}/{schemeExternalId}` : `${base}/{id}`;
      expect(referenceViolations("GET", one, 200, (await t.api("GET", `${base}/${id}`)).body), base).toEqual([]);
      expect(referenceViolations("GET", base, 200, (await t.api("GET", base)).body), base).toEqual([]);
    }
  });
});
