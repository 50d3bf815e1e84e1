import { randomUUID } from "node:crypto";

/**
 * Stored spans as `GET /api/v1/traces` answers them (docs/lineage.md, "Reading"): in the reference
 * description's OtlpSpan shape rather than as the exporter wrote them. OTLP/JSON writes 64-bit
 * integers as decimal strings and a span's kind as a number; the answer writes nanoseconds and
 * integer attribute values as JSON numbers (their digits unchanged, exact whatever their size),
 * numeric double values as numbers, and the kind as its `SPAN_KIND_*` name. Everything else
 * stays as sent.
 */

/** SPAN_KIND_* by the number OTLP gives it. */
const SPAN_KINDS = ["SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER", "SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER"];

/**
 * A decimal string stands in the parsed value as this marker and its digits, and the marker's
 * quotes are taken off in the written text: JSON.stringify cannot write an integer past 2^53
 * exactly. The marker is new each start, so no sent text can hold it.
 */
const MARK = `int64:${randomUUID()}:`;
const MARKED = new RegExp(`"${MARK}(-?[0-9]+)"`, "g");

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function integer(value: unknown): unknown {
  return typeof value === "string" && /^-?[0-9]{1,20}$/.test(value) ? `${MARK}${value}` : value;
}

function anyValue(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = { ...value };
  if ("intValue" in out) out.intValue = integer(out.intValue);
  if (typeof out.doubleValue === "string" && Number.isFinite(Number(out.doubleValue)) && out.doubleValue.trim() !== "") out.doubleValue = Number(out.doubleValue);
  if (isRecord(out.arrayValue) && Array.isArray(out.arrayValue.values)) out.arrayValue = { ...out.arrayValue, values: out.arrayValue.values.map(anyValue) };
  if (isRecord(out.kvlistValue) && Array.isArray(out.kvlistValue.values)) out.kvlistValue = { ...out.kvlistValue, values: attributes(out.kvlistValue.values) };
  return out;
}

function attributes(list: unknown): unknown {
  return Array.isArray(list) ? list.map((kv) => (isRecord(kv) && "value" in kv ? { ...kv, value: anyValue(kv.value) } : kv)) : list;
}

const written = (value: unknown) => JSON.stringify(value).replace(MARKED, "$1");

/** A stored span (JSON text) in the answer's shape. */
export function answeredSpan(stored: string): string {
  const span = JSON.parse(stored) as Record<string, unknown>;
  if (typeof span.kind === "number" && SPAN_KINDS[span.kind] !== undefined) span.kind = SPAN_KINDS[span.kind];
  for (const member of ["startTimeUnixNano", "endTimeUnixNano"]) if (member in span) span[member] = integer(span[member]);
  if ("attributes" in span) span.attributes = attributes(span.attributes);
  return written(span);
}

/** A stored resource (JSON text) in the answer's shape: its attributes' values as a span's. */
export function answeredResource(stored: string): string {
  const resource = JSON.parse(stored) as Record<string, unknown>;
  if (!isRecord(resource) || !("attributes" in resource)) return stored;
  return written({ ...resource, attributes: attributes(resource.attributes) });
}
