/**
 * OTLP/JSON trace export requests in the shapes OpenTelemetry exporters send: hexadecimal trace and
 * span ids, 64-bit integers as decimal strings, span kinds as numbers, SDK resource attributes.
 */

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

let sequence = 0;
/** A fresh 16-hex-digit span id. */
export const spanId = () => (++sequence).toString(16).padStart(16, "0");
export const traceId = (n: number) => n.toString(16).padStart(32, "0");

/** Nanoseconds since the epoch, as the JSON mapping writes them. */
export const nanos = (iso: string) => (BigInt(Date.parse(iso)) * 1_000_000n).toString();

export interface SpanOptions {
  attributes?: Record<string, string>;
  start?: string;
  trace?: number;
  id?: string;
  name?: string;
}

/** One span as the OpenTelemetry SDK's OTLP/HTTP JSON exporter writes it. */
export function sdkSpan(o: SpanOptions = {}) {
  const start = o.start ?? "2026-06-01T08:00:00.000Z";
  return {
    traceId: traceId(o.trace ?? 1),
    spanId: o.id ?? spanId(),
    parentSpanId: "",
    name: o.name ?? "SELECT shop.public.orders",
    kind: 3,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(new Date(Date.parse(start) + 250).toISOString()),
    attributes: [
      str("db.system", "postgresql"),
      str("db.operation.name", "SELECT"),
      { key: "db.response.returned_rows", value: { intValue: "1523" } },
      ...Object.entries(o.attributes ?? {}).map(([k, v]) => str(k, v)),
    ],
    droppedAttributesCount: 0,
    events: [],
    links: [],
    status: { code: 1 },
    flags: 257,
  };
}

/** A whole export request from one service, its spans under one instrumentation scope. */
export function sdkExport(service: string, spans: object[], resourceAttributes: Record<string, string> = {}) {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: [
            str("service.name", service),
            str("telemetry.sdk.language", "nodejs"),
            str("telemetry.sdk.name", "opentelemetry"),
            str("telemetry.sdk.version", "1.30.0"),
            ...Object.entries(resourceAttributes).map(([k, v]) => str(k, v)),
          ],
          droppedAttributesCount: 0,
        },
        scopeSpans: [{ scope: { name: "usage", version: "1.0.0" }, spans }],
      },
    ],
  };
}

/** The reference product's shape: the product and port on the resource, numbers as JSON numbers. */
export function referenceExport(accessId: string) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [str("service.name", "snowflake"), str("dataproduct.id", "orders"), str("outputport.name", "open")] },
        scopeSpans: [
          {
            scope: { name: "usage", version: "1.0.0" },
            spans: [
              {
                traceId: "trace001",
                spanId: "span001",
                kind: "SPAN_KIND_INTERNAL",
                startTimeUnixNano: 1780300800000000000,
                endTimeUnixNano: 1780300860000000000,
                attributes: [
                  str("user", "ANALYTICS_TEAM"),
                  str("role", "ANALYST"),
                  str("type", "query"),
                  str("query", "SELECT * FROM orders WHERE date > '2026-01-01'"),
                  { key: "rows", value: { intValue: 1523 } },
                  str("result", "success"),
                  str("access.id", accessId),
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}
