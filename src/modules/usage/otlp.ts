import type { AnyValueShape, KeyValue, Span, TracesRequest } from "./shapes.js";

/**
 * What a span says about a use (docs/lineage.md, "Usage"), read from its attributes over those of
 * its resource (a span's own attribute wins). Pure: nothing here looks at the catalog.
 */
export interface SpanUse {
  /** Where the span is in the body, e.g. `resourceSpans[0].scopeSpans[1].spans[2]`. */
  path: string;
  traceId: string;
  spanId: string;
  scopeName: string | null;
  serviceName: string | null;
  dataProductId: string | null;
  outputPortId: string | null;
  accessId: string | null;
  consumerDataProductId: string | null;
  consumerTeamId: string | null;
  /** ISO 8601 instants. */
  start: string;
  end: string | null;
  resource: unknown;
  scope: unknown;
  span: Span;
}

/** The attributes Steward reads, by name. `outputport.name` is the reference's name for the port. */
export const USAGE_ATTRIBUTES = {
  dataProductId: ["dataproduct.id"],
  outputPortId: ["outputport.id", "outputport.name"],
  accessId: ["access.id"],
  consumerDataProductId: ["consumer.dataproduct.id"],
  consumerTeamId: ["consumer.team.id"],
  serviceName: ["service.name"],
} as const;

/** A scalar attribute value as text: strings as they are, integers, doubles and booleans written out. */
function scalar(value: AnyValueShape | undefined): string | null {
  if (value === undefined) return null;
  if (typeof value.stringValue === "string") return value.stringValue;
  if (value.intValue !== undefined) return String(value.intValue);
  if (value.doubleValue !== undefined) return String(value.doubleValue);
  if (typeof value.boolValue === "boolean") return String(value.boolValue);
  return null;
}

function attributeMap(list: readonly KeyValue[] | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const kv of list ?? []) {
    const text = scalar(kv.value);
    if (text !== null && text !== "") map.set(kv.key, text);
  }
  return map;
}

function pick(names: readonly string[], ...maps: Array<Map<string, string>>): string | null {
  for (const map of maps) for (const name of names) if (map.has(name)) return map.get(name)!;
  return null;
}

/** Nanoseconds since the epoch (a number or a decimal string) as an ISO 8601 instant, millisecond precise. */
export function instantOf(nanos: number | string): string | null {
  const ms = typeof nanos === "string" ? Number(BigInt(nanos) / 1_000_000n) : Math.floor(nanos / 1_000_000);
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Every span of the request with what it says about a use, in body order. */
export function spanUses(request: TracesRequest): SpanUse[] {
  const uses: SpanUse[] = [];
  request.resourceSpans.forEach((rs, r) => {
    const resourceAttributes = attributeMap(rs.resource?.attributes);
    (rs.scopeSpans ?? []).forEach((ss, s) => {
      (ss.spans ?? []).forEach((span, i) => {
        const own = attributeMap(span.attributes);
        const read = (names: readonly string[]) => pick(names, own, resourceAttributes);
        uses.push({
          path: `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`,
          traceId: span.traceId,
          spanId: span.spanId,
          scopeName: ss.scope?.name ?? null,
          serviceName: read(USAGE_ATTRIBUTES.serviceName),
          dataProductId: read(USAGE_ATTRIBUTES.dataProductId),
          outputPortId: read(USAGE_ATTRIBUTES.outputPortId),
          accessId: read(USAGE_ATTRIBUTES.accessId),
          consumerDataProductId: read(USAGE_ATTRIBUTES.consumerDataProductId),
          consumerTeamId: read(USAGE_ATTRIBUTES.consumerTeamId),
          start: instantOf(span.startTimeUnixNano) ?? "",
          end: span.endTimeUnixNano === undefined ? null : instantOf(span.endTimeUnixNano),
          resource: rs.resource ?? {},
          scope: ss.scope ?? {},
          span,
        });
      });
    });
  });
  return uses;
}

/** Spans in the body, counted before anything else is read. */
export function spanCount(request: TracesRequest): number {
  return request.resourceSpans.reduce((n, rs) => n + (rs.scopeSpans ?? []).reduce((m, ss) => m + (ss.spans?.length ?? 0), 0), 0);
}
