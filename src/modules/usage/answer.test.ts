import { describe, expect, it } from "vitest";
import { answeredResource, answeredSpan } from "./answer.js";

describe("spans in the answer's shape", () => {
  it("writes string nanoseconds and integers as numbers of the same digits, past 2^53 too, and the kind by name", () => {
    const stored = JSON.stringify({
      traceId: "t",
      spanId: "s",
      kind: 2,
      startTimeUnixNano: "1780300800123456789",
      endTimeUnixNano: 1780300800000000000,
      attributes: [
        { key: "rows", value: { intValue: "9007199254740993" } },
        { key: "ratio", value: { doubleValue: "0.5" } },
        { key: "list", value: { arrayValue: { values: [{ intValue: "-7" }, { stringValue: "12" }] } } },
        { key: "map", value: { kvlistValue: { values: [{ key: "n", value: { intValue: "3" } }] } } },
      ],
      status: { code: 1 },
    });
    const text = answeredSpan(stored);
    expect(text).toContain('"startTimeUnixNano":1780300800123456789');
    expect(text).toContain('"endTimeUnixNano":1780300800000000000');
    expect(text).toContain('{"intValue":9007199254740993}');
    const span = JSON.parse(text);
    expect(span.kind).toBe("SPAN_KIND_SERVER");
    expect(span.attributes[1].value).toEqual({ doubleValue: 0.5 });
    expect(span.attributes[2].value.arrayValue.values).toEqual([{ intValue: -7 }, { stringValue: "12" }]);
    expect(span.attributes[3].value.kvlistValue.values[0].value).toEqual({ intValue: 3 });
    expect(span.status).toEqual({ code: 1 });
  });

  it("leaves a named kind, text that only looks like a number, and what it does not know as sent", () => {
    const stored = JSON.stringify({ kind: "SPAN_KIND_INTERNAL", name: "42", startTimeUnixNano: "soon", attributes: [{ key: "q", value: { stringValue: '"int64:x:1"' } }, { key: "d", value: { doubleValue: "NaN" } }] });
    expect(JSON.parse(answeredSpan(stored))).toEqual(JSON.parse(stored));
    expect(JSON.parse(answeredResource(JSON.stringify({ attributes: [{ key: "n", value: { intValue: "5" } }], droppedAttributesCount: 0 })))).toEqual({ attributes: [{ key: "n", value: { intValue: 5 } }], droppedAttributesCount: 0 });
  });
});
