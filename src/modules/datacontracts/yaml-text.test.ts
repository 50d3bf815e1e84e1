import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

const WRITTEN = readFileSync(new URL("../../../test/fixtures/contracts/odcs-payments.yaml", import.meta.url), "utf8");
const DOCUMENT_BYTES = 64 * 1024;

describe.each(DATABASES)("a data contract's YAML as written (%s)", (kind) => {
  const putYaml = (id: string, text: string) => t.api("PUT", `/api/datacontracts/${id}`, undefined, { raw: text, contentType: "application/yaml" });
  const yaml = async (id: string, query = "") => (await t.api("GET", `/api/datacontracts/${id}/datacontract.yaml${query}`)).text;
  const versions = async (id: string) => ((await t.api("GET", `/api/datacontracts/${id}/versions`)).body as unknown[]).length;

  const t = suiteServer(kind, { teams: { finance: "Finance" }, overrides: { limits: { documentBytes: DOCUMENT_BYTES, pageBytes: 10 * DOCUMENT_BYTES } } });

  it("gives back a YAML document byte for byte: comments, order and quoting", async () => {
    expect((await putYaml("payments-contract", WRITTEN)).status).toBe(200);
    expect(await yaml("payments-contract")).toBe(WRITTEN);
    // The JSON answer is the parsed document, as before.
    expect((await t.api("GET", "/api/datacontracts/payments-contract")).body).toEqual({ ...parse(WRITTEN), id: "payments-contract" });
  });

  it("keeps a new comment although the document did not change, without a new version", async () => {
    const recommented = WRITTEN.replace("# Payments as the finance team", "# Payments, as the finance team");
    expect((await putYaml("payments-contract", recommented)).status).toBe(200);
    expect(await yaml("payments-contract")).toBe(recommented);
    expect(await versions("payments-contract")).toBe(1);
  });

  it("replaces the text with generated YAML when the same contract is written as JSON", async () => {
    const doc = (await t.api("GET", "/api/datacontracts/payments-contract")).body;
    expect((await t.api("PUT", "/api/datacontracts/payments-contract", doc)).status).toBe(200);
    const generated = await yaml("payments-contract");
    expect(generated).not.toContain("# Payments");
    expect(parse(generated)).toEqual(doc);
    // And a conversion is always generated.
    expect((await putYaml("payments-contract", WRITTEN)).status).toBe(200);
    expect(await yaml("payments-contract", "?format=odcs")).not.toContain("# Payments as the finance team");
  });

  it("refuses a YAML text over the stored-document limit, storing nothing", async () => {
    const padded = `${"# padding\n".repeat(DOCUMENT_BYTES / 10 + 1)}${WRITTEN}`;
    const res = await putYaml("padded", padded.replace("id: payments-contract", "id: padded"));
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/YAML text is \d+ bytes.*DOCUMENT_LIMIT_BYTES/);
    expect((await t.api("GET", "/api/datacontracts/padded")).status).toBe(404);
  });
});
