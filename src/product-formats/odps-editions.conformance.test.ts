import { describe, expect, it } from "vitest";
import { change, type Doc } from "../../test/helpers/edition-documents.js";
import { officialSchema } from "../../test/helpers/standards.js";
import { odpsFormat } from "./odps.js";

/**
 * Steward's verdict on ODPS documents must be the official schema's, edition by edition: v1.0.0
 * documents by the 1.0.0 schema, v1.1.0 documents by the 1.1.0 schema. Each case is one small
 * change to a valid product, most of them on a line where the two editions disagree.
 */
const OFFICIAL: Record<string, string> = { "v1.0.0": "odps-json-schema-v1.0.0.json", "v1.1.0": "odps-json-schema-v1.1.0.json" };

function product(apiVersion: string): Doc {
  return {
    apiVersion,
    kind: "DataProduct",
    id: "parcels",
    name: "Parcels",
    status: "active",
    domain: "logistics",
    inputPorts: [{ name: "scans", version: "1.0.0", contractId: "scans" }],
    outputPorts: [{ name: "warehouse", version: "1.0.0", contractId: "parcels" }],
  };
}

const O = "outputPorts.0";
const I = "inputPorts.0";
const CASES: Array<[string, string, unknown]> = [
  ["nothing changed", "name", "Parcels"],
  ["no status", "status", undefined],
  ["an unknown member on the product", "note", 1],
  ["a product type", "type", "sourceAligned"],
  ["a deprecated product", "deprecated", true],
  ["deprecated as text", "deprecated", "yes"],
  ["synonyms on the product", "synonyms", [{ synonym: "shipments", locale: "en" }]],
  ["a synonym without its text", "synonyms", [{ locale: "en" }]],
  ["context on the product", "context", { instructions: "i", verifiedStatements: [{ question: "q", answer: "a" }], constraints: [{ constraint: "c" }] }],
  ["context as text", "context", "i"],
  ["context with an unknown member", "context", { note: 1 }],
  ["a verified statement without question", "context", { verifiedStatements: [{ answer: "a" }] }],
  ["an output port without version", `${O}.version`, undefined],
  ["an output port without name", `${O}.name`, undefined],
  ["an id on an output port", `${O}.id`, "wh"],
  ["a deprecated output port", `${O}.deprecated`, true],
  ["context on an output port", `${O}.context`, { instructions: "i" }],
  ["synonyms on an output port", `${O}.synonyms`, [{ synonym: "dwh" }]],
  ["an input port without version and contract", I, { name: "scans" }],
  ["an input port without contract", `${I}.contractId`, undefined],
  ["an id on an input port", `${I}.id`, "in1"],
  ["context on an input port", `${I}.context`, { instructions: "i" }],
  ["an SBOM without url", `${O}.sbom`, [{ type: "external" }]],
  ["an SBOM with an id", `${O}.sbom`, [{ id: "b1", url: "https://sbom.example/x" }]],
  ["an id on a custom property", "customProperties", [{ id: "c1", property: "a", value: 1 }]],
  ["an id on an authoritative definition", "authoritativeDefinitions", [{ id: "d1", type: "t", url: "https://x.example" }]],
  ["an id on a support channel", "support", [{ id: "s1", channel: "c", url: "https://x.example" }]],
  ["an id on a team member", "team", { name: "logistics", members: [{ id: "m1", username: "u" }] }],
  ["an id on the team", "team", { id: "t1", name: "logistics" }],
  ["a deprecated management port", "managementPorts", [{ name: "m", content: "discoverability", deprecated: true }]],
  ["an unknown member on an output port", `${O}.note`, 1],
];

describe.each(Object.keys(OFFICIAL))("ODPS %s is judged as its official schema judges it", (apiVersion) => {
  const official = officialSchema(OFFICIAL[apiVersion]!);
  it.each(CASES)("%s", (_name, path, value) => {
    const doc = change(product(apiVersion), path, structuredClone(value));
    const expected = official(doc);
    const violations = odpsFormat.validate(doc);
    expect({ valid: violations.length === 0, violations }).toMatchObject({ valid: expected });
  });
});
