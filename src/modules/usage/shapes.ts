import { Type, type Static } from "@sinclair/typebox";
import { violationPortMembers } from "../lineage/shapes.js";

/**
 * OTLP/JSON trace export requests as Steward takes them (docs/lineage.md, "Usage"), written from
 * the facts of the OpenTelemetry protocol: `resourceSpans[].scopeSpans[].spans[]`, attributes as
 * lists of `{key, value}` whose value holds one of `stringValue`, `boolValue`, `intValue` (a
 * number or, as the protocol's JSON mapping writes 64-bit integers, a decimal string),
 * `doubleValue`, `bytesValue`, `arrayValue` or `kvlistValue`. Members Steward does not read
 * (events, links, status, flags, …) are kept as sent.
 */

/** Most spans one request may carry. */
export const MAX_SPANS_PER_REQUEST = 10_000;
/** Most attributes of one resource or span. */
export const MAX_ATTRIBUTES = 1000;
/** Most bytes one span takes as JSON text, with its resource and scope. */
export const MAX_SPAN_BYTES = 256 * 1024;

/** A 64-bit unsigned integer as OTLP/JSON writes it: a decimal string, or a plain number. */
const Uint64 = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: "^[0-9]{1,20}$" })], { description });
const Int64 = Type.Union([Type.Integer(), Type.String({ pattern: "^-?[0-9]{1,20}$" })]);
/** An identifier Steward keeps in its own columns: no NUL, which PostgreSQL text cannot hold. */
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 256, pattern: "^[^\\u0000]+$", description });

/** An attribute's value; array and key–value list values are kept as sent, not read. */
const AnyValue = Type.Object(
  {
    stringValue: Type.Optional(Type.String()),
    boolValue: Type.Optional(Type.Boolean()),
    intValue: Type.Optional(Int64),
    doubleValue: Type.Optional(Type.Union([Type.Number(), Type.String()])),
    bytesValue: Type.Optional(Type.String()),
    arrayValue: Type.Optional(Type.Object({}, { additionalProperties: true })),
    kvlistValue: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

export const KeyValueSchema = Type.Object(
  { key: Type.String({ maxLength: 1024, description: "The attribute's name, e.g. `dataproduct.id`." }), value: Type.Optional(AnyValue) },
  { additionalProperties: true },
);
export type KeyValue = { key: string; value?: AnyValueShape };
export interface AnyValueShape {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number | string;
  bytesValue?: string;
  arrayValue?: { values?: AnyValueShape[] };
  kvlistValue?: { values?: KeyValue[] };
}

const Attributes = (description: string) => Type.Optional(Type.Array(KeyValueSchema, { maxItems: MAX_ATTRIBUTES, description }));

export const SpanSchema = Type.Object(
  {
    traceId: Id("The trace's id (OTLP sends 32 hexadecimal digits)."),
    spanId: Id("The span's id within its trace (OTLP sends 16 hexadecimal digits); a span sent again replaces the one stored."),
    parentSpanId: Type.Optional(Type.String({ maxLength: 256 })),
    name: Type.Optional(Type.String({ maxLength: 1024, description: "What the span did, e.g. `SELECT orders`." })),
    kind: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 5 }), Type.String({ maxLength: 64 })], { description: "SPAN_KIND_* as a number or its name." })),
    startTimeUnixNano: Uint64("When the span started, in nanoseconds since the Unix epoch."),
    endTimeUnixNano: Type.Optional(Uint64("When the span ended, in nanoseconds since the Unix epoch.")),
    attributes: Attributes("The span's attributes; `dataproduct.id`, `outputport.id` (or `outputport.name`), `access.id`, `consumer.dataproduct.id` and `consumer.team.id` are read (docs/lineage.md)."),
  },
  { additionalProperties: true, title: "OtlpSpan" },
);
export type Span = Static<typeof SpanSchema> & { attributes?: KeyValue[] };

export const ScopeSchema = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 1024, description: "The instrumentation scope, e.g. `usage`." })), version: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: true },
);

export const TracesRequestSchema = Type.Object(
  {
    resourceSpans: Type.Array(
      Type.Object(
        {
          resource: Type.Optional(Type.Object({ attributes: Attributes("Attributes of every span of the resource: `service.name`, and any of the span attributes Steward reads.") }, { additionalProperties: true })),
          scopeSpans: Type.Optional(
            Type.Array(
              Type.Object({ scope: Type.Optional(ScopeSchema), spans: Type.Optional(Type.Array(SpanSchema)) }, { additionalProperties: true }),
            ),
          ),
        },
        { additionalProperties: true },
      ),
      { description: "Spans grouped by the resource that produced them and by instrumentation scope." },
    ),
  },
  { additionalProperties: true, title: "OtelTracesRequest" },
);
export type TracesRequest = {
  resourceSpans: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string; version?: string }; spans?: Span[] }>;
  }>;
};

export const TracesAnswerSchema = Type.Object(
  {
    partialSuccess: Type.Optional(
      Type.Object({
        rejectedSpans: Type.Integer({ description: "How many spans were not taken." }),
        errorMessage: Type.String({ description: "Why, for the first spans rejected." }),
      }),
    ),
  },
  { description: "OTLP's ExportTraceServiceResponse: empty when every span was taken." },
);

export const TracesListQuery = Type.Object({
  scopeName: Type.Optional(Type.String({ maxLength: 1024, description: "Only spans of this instrumentation scope." })),
  dataProductId: Type.Optional(Type.String({ maxLength: 1024, description: "Only uses of this data product." })),
  dataContractId: Type.Optional(Type.String({ maxLength: 1024, description: "Only uses of output ports offering this data contract." })),
  outputPortId: Type.Optional(Type.String({ maxLength: 1024, description: "Only uses of this output port." })),
  accessId: Type.Optional(Type.String({ maxLength: 1024, description: "Only uses under this access." })),
  since: Type.Optional(Type.String({ format: "date-time", description: "Only spans that started at or after this instant." })),
  until: Type.Optional(Type.String({ format: "date-time", description: "Only spans that started before this instant." })),
});

export const TracesDeleteQuery = Type.Object({
  scopeName: Type.Optional(Type.String({ maxLength: 1024 })),
  dataProductId: Type.Optional(Type.String({ maxLength: 1024 })),
  dataContractId: Type.Optional(Type.String({ maxLength: 1024 })),
  spanId: Type.Optional(Type.String({ maxLength: 1024 })),
});

export const TracesDeletedSchema = Type.Object({ deletedCount: Type.Integer({ description: "How many spans were deleted." }) });

export const ConsumerKinds = ["dataProduct", "team", "service"] as const;

export const UsageSummarySchema = Type.Object({
  count: Type.Integer({ description: "How many uses (spans) are kept." }),
  consumers: Type.Array(
    Type.Object({
      type: Type.Union(ConsumerKinds.map((k) => Type.Literal(k)), { description: "Who used it: a data product, a team, or (when the span named neither) the service that reported it." }),
      id: Type.String(),
      count: Type.Integer({ description: "How many uses." }),
      lastUsedAt: Type.String({ description: "When the last use started (ISO 8601)." }),
    }),
    { description: "Who used it, most recent first." },
  ),
});
export type UsageSummary = Static<typeof UsageSummarySchema>;

/** A provider product's uses without an agreement (docs/lineage.md, "Uses without an agreement"), in the shape of lineage's reads without one. */
export const UsageViolationsSchema = Type.Array(
  Type.Object({
    ...violationPortMembers("The port that was used.", "The UTC day (YYYY-MM-DD) the use was first seen."),
    consumerType: Type.Union([Type.Literal("dataProduct"), Type.Literal("team")], { description: "Who used it: a data product (with its owner team) or a team." }),
    consumerDataProductId: Type.Union([Type.String(), Type.Null()], { description: "The consuming data product; null for a team consumer." }),
    consumerTeamId: Type.Union([Type.String(), Type.Null()]),
    span: Type.Object({ traceId: Type.String(), spanId: Type.String(), serviceName: Type.String({ description: "The service that reported the use." }) }, { description: "The first span that showed the use that day." }),
    detectedAt: Type.String(),
  }),
);
export type UsageViolation = Static<typeof UsageViolationsSchema>[number];
