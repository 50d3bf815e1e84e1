import { Type, type Static } from "@sinclair/typebox";

/**
 * OpenLineage `RunEvent`s as Steward takes them (docs/lineage.md), written from the facts of the
 * OpenLineage specification: `eventTime`, `producer`, `run.runId` (a UUID) and `job.namespace`/
 * `job.name` are required, `eventType` is one of the run states, and datasets are named by
 * `namespace` and `name`. Facets are open objects kept as sent. `schemaURL` is required by the
 * specification but not every client sends it; Steward keeps it when it comes.
 */

/** Most run events one request may carry. */
export const MAX_EVENTS_PER_REQUEST = 1000;
/** Most input or output datasets one run event may name. */
export const MAX_DATASETS_PER_EVENT = 1000;
/** Most input and output datasets all run events of one request may name together. */
export const MAX_DATASETS_PER_REQUEST = 20_000;
/** Most bytes one run event may take as JSON text, facets included. */
export const MAX_EVENT_BYTES = 1024 * 1024;

const Name = (description: string) => Type.String({ minLength: 1, maxLength: 1024, description });
const Facets = (description: string) => Type.Optional(Type.Object({}, { additionalProperties: true, description }));

export const EVENT_TYPES = ["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"] as const;

export const LineageDatasetSchema = Type.Object(
  {
    namespace: Name("Where the dataset lives, by OpenLineage dataset naming: `postgres://host:5432`, `mysql://host:3306`, `bigquery`, `s3://bucket`."),
    name: Name("The dataset's name within its namespace: `db.schema.table`, `db.table`, `project.dataset.table`, an object path."),
    facets: Facets("Dataset facets (schema, columnLineage, dataSource, …), kept as sent."),
    inputFacets: Facets("Input dataset facets, kept as sent."),
    outputFacets: Facets("Output dataset facets, kept as sent."),
  },
  { additionalProperties: true, title: "LineageDataset" },
);

/** The run facet that links a run to the data product it runs for (the reference's `entropy_data`). */
export const LinkRunFacetSchema = Type.Object(
  {
    dataProductId: Type.Optional(Type.String({ maxLength: 1024, description: "The data product the run works for: its owner team is the consumer of what the run reads." })),
    outputPortName: Type.Optional(Type.String({ maxLength: 1024, description: "The output port of that data product the run writes." })),
  },
  { additionalProperties: true },
);

export const RunEventSchema = Type.Object(
  {
    eventType: Type.Optional(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)), { description: "The run's state this event reports." })),
    eventTime: Type.String({ format: "date-time", description: "When the event happened (ISO 8601)." }),
    run: Type.Object(
      {
        runId: Type.String({ format: "uuid", description: "The run's id, a UUID shared by all events of one run." }),
        facets: Type.Optional(Type.Object({ entropy_data: Type.Optional(LinkRunFacetSchema) }, { additionalProperties: true, description: "Run facets, kept as sent." })),
      },
      { additionalProperties: true },
    ),
    job: Type.Object(
      {
        namespace: Name("The job's namespace, e.g. the scheduler or tool that runs it."),
        name: Name("The job's name, unique within its namespace."),
        facets: Facets("Job facets (jobType, sql, sourceCode, …), kept as sent."),
      },
      { additionalProperties: true },
    ),
    inputs: Type.Optional(Type.Array(LineageDatasetSchema, { maxItems: MAX_DATASETS_PER_EVENT, description: "Datasets the run reads." })),
    outputs: Type.Optional(Type.Array(LineageDatasetSchema, { maxItems: MAX_DATASETS_PER_EVENT, description: "Datasets the run writes." })),
    producer: Type.String({ minLength: 1, maxLength: 2048, format: "uri", description: "The software that emitted the event." }),
    schemaURL: Type.Optional(Type.String({ maxLength: 2048, format: "uri", description: "The OpenLineage schema version the event follows." })),
  },
  { additionalProperties: true, title: "OpenLineageRunEvent" },
);
export type RunEvent = Static<typeof RunEventSchema>;

export const LineageQuery = Type.Object({
  dataProductId: Type.Optional(Type.String({ maxLength: 1024, description: "The data product the events run for (takes precedence over the `entropy_data` run facet)." })),
  outputPortName: Type.Optional(Type.String({ maxLength: 1024, description: "The output port of that data product the run writes." })),
});

export const LineageListQuery = Type.Object({
  jobNamespace: Type.Optional(Type.String({ maxLength: 1024 })),
  jobName: Type.Optional(Type.String({ maxLength: 1024 })),
  runId: Type.Optional(Type.String({ maxLength: 1024 })),
  eventType: Type.Optional(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))),
  dataProductId: Type.Optional(Type.String({ maxLength: 1024 })),
});

export const LineageDeleteQuery = Type.Object({
  runId: Type.Optional(Type.String({ maxLength: 1024, description: "Delete the events of this run." })),
  jobNamespace: Type.Optional(Type.String({ maxLength: 1024, description: "Delete the events of jobs in this namespace (of one job with jobName)." })),
  jobName: Type.Optional(Type.String({ maxLength: 1024, description: "With jobNamespace: delete the events of this job." })),
});

export const LineageDeletedSchema = Type.Object({ deletedCount: Type.Integer({ description: "How many events were deleted." }) });

export const LineagePostedSchema = Type.Object({
  accepted: Type.Integer({ description: "How many run events were stored." }),
  violations: Type.Integer({ description: "How many new reads without an agreement they revealed (docs/lineage.md)." }),
});

/** Most levels the graph follows from where it starts. */
export const MAX_GRAPH_DEPTH = 5;

export const LineageGraphQuery = Type.Object({
  dataset: Type.Optional(Type.String({ maxLength: 2100, description: "Start at this dataset: `<namespace>/<name>`, e.g. `postgres://db:5432/shop.public.orders` (the name follows the namespace's last `/`)." })),
  job: Type.Optional(Type.String({ maxLength: 2100, description: "Start at this job: `<namespace>/<name>`." })),
  dataProductId: Type.Optional(Type.String({ maxLength: 1024, description: "Start at the datasets of this data product's output ports." })),
  depth: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_GRAPH_DEPTH, default: 2, description: `How many job–dataset steps to follow each way (at most ${MAX_GRAPH_DEPTH}).` })),
});

export const LineageNodeSchema = Type.Object({
  id: Type.String({ description: "`dataset:<namespace>/<name>` or `job:<namespace>/<name>`." }),
  type: Type.Union([Type.Literal("dataset"), Type.Literal("job")]),
  namespace: Type.String(),
  name: Type.String(),
  dataProductId: Type.Optional(Type.String({ description: "A dataset that is an output port's: the port's data product." })),
  outputPortId: Type.Optional(Type.String({ description: "A dataset that is an output port's: the port." })),
});

export const LineageEdgeSchema = Type.Object({
  source: Type.String({ description: "Node id the data flows from." }),
  target: Type.String({ description: "Node id the data flows to." }),
});

export const LineageGraphSchema = Type.Object({
  nodes: Type.Array(LineageNodeSchema),
  edges: Type.Array(LineageEdgeSchema),
  truncated: Type.Boolean({ description: "The graph reached its node or edge limit and was cut there." }),
});
export type LineageGraph = Static<typeof LineageGraphSchema>;
export type LineageNode = Static<typeof LineageNodeSchema>;

/**
 * The members a read without an agreement starts with, lineage's and usage's alike: the providing
 * data product, its port and the day the read was first seen, `port` and `day` saying how it was read.
 */
export function violationPortMembers(port: string, day: string) {
  return {
    dataProductId: Type.String({ description: "The providing data product." }),
    outputPortId: Type.String({ description: port }),
    day: Type.String({ description: day }),
  };
}

export const LineageViolationsSchema = Type.Array(
  Type.Object({
    ...violationPortMembers("The port whose dataset was read.", "The UTC day (YYYY-MM-DD) the read was first seen."),
    consumerDataProductId: Type.String(),
    consumerTeamId: Type.Union([Type.String(), Type.Null()]),
    job: Type.Object({ namespace: Type.String(), name: Type.String() }),
    runId: Type.String(),
    dataset: Type.Object({ namespace: Type.String(), name: Type.String() }),
    detectedAt: Type.String(),
  }),
);
