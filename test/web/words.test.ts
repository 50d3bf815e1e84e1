import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { ResourceId } from "../../src/platform/http/shapes.js";
import { atFields, describeViolation, idProblem, sentence } from "../../web/src/words.js";
import { parseText, pathSegments } from "../../web/src/yaml-text.js";

describe("the web app's words for server violations", () => {
  it("checks ids exactly as the server's ResourceId does", () => {
    const ids = ["sales", "Sales Team", "données-ventes", "a.b_c:d", "x".repeat(256), "x".repeat(257), "", "a/b", "nul\u0000", "😀".repeat(256), "😀".repeat(257), " "];
    // The server validates requests with ajv, which counts characters (code points), not UTF-16 units.
    const serverAccepts = new Ajv().compile(ResourceId);
    for (const id of ids) expect(idProblem(id) === undefined, JSON.stringify(id)).toBe(serverAccepts(id));
  });

  it("turns validator phrases into sentences and keeps the server's own sentences", () => {
    expect(sentence("must NOT have fewer than 1 characters")).toBe("cannot be empty.");
    expect(sentence('must match pattern "^[^/\\u0000]+$"')).toBe("cannot contain a slash (/).");
    expect(sentence('must match format "email"')).toBe("must be an email address, like name@example.com.");
    expect(sentence("must be string")).toBe("must be text.");
    expect(describeViolation({ field: "info.title", message: "must NOT have fewer than 1 characters" }, { "info.title": "The title" })).toBe("The title cannot be empty.");
    expect(describeViolation({ field: "outputPorts[2].id", message: "must have required property 'id'" }, { "outputPorts[].id": "The port id" })).toBe("The port id is required.");
    expect(describeViolation({ field: "models[0].name", message: "a model needs a name" })).toBe("models[0].name: A model needs a name.");
    const { byField, rest } = atFields(
      [
        { field: "name", message: "must NOT have fewer than 1 characters" },
        { field: "members[0].emailAddress", message: 'must match format "email"' },
      ],
      { name: "The name" },
    );
    expect(byField).toEqual({ name: "The name cannot be empty." });
    expect(rest).toHaveLength(1);
  });

  it("finds the line of a violation's path in YAML, also inside a text block", () => {
    expect(pathSegments('schema[0].specification["odd key"].models[1]')).toEqual(["schema", 0, "specification", "odd key", "models", 1]);
    const text = ["info:", "  title: Orders", "schema:", "  type: dbt", "  specification: |", "    version: 2", "    models:", "      - columns: []", ""].join("\n");
    const parsed = parseText(text);
    expect(parsed.problems).toEqual([]);
    const [title, missing, inBlock] = parsed.locate([
      { field: "info.title", message: "x" },
      { field: "info.owner", message: "is required" },
      { field: "schema.specification.models[0].name", message: "a model needs a name", line: 3, column: 5 },
    ]);
    expect(title.at?.line).toBe(2);
    expect(missing.at?.line).toBe(2);
    expect(inBlock.at).toEqual({ line: 8, column: 5 });
    const broken = parseText("a: 1\nb: [1, 2\nc: 3\n").problems;
    expect(broken.length).toBeGreaterThan(0);
    expect(broken[0].at?.line).toBeGreaterThanOrEqual(2);
    expect(broken[0].message).not.toContain("\n");
  });
});
