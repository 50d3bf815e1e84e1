/**
 * Run events shaped as OpenLineage integrations send them (dbt-ol, Airflow, Spark), for the
 * lineage tests. Each takes its run id so a test can tell its events apart.
 */

const SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent";

/** How every integration opens a run event: its type, time and producer, the schema it follows, and the run with its facets. */
function runEvent(eventType: string, eventTime: string, producer: string, runId: string, runFacets: Record<string, unknown>) {
  return { eventType, eventTime, producer, schemaURL: SCHEMA_URL, run: { runId, facets: runFacets } };
}

/** dbt-ol after a model ran: reads the orders table, writes daily revenue with column lineage. */
export function dbtEvent(runId: string, eventTime = "2026-06-01T06:00:00.000Z") {
  return {
    eventType: "COMPLETE",
    eventTime,
    producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt",
    schemaURL: SCHEMA_URL,
    run: {
      runId,
      facets: {
        dbt_version: { _producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt", _schemaURL: "https://openlineage.io/spec/facets/1-0-0/DbtVersionRunFacet.json", version: "1.8.2" },
        processing_engine: { _producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt", _schemaURL: "https://openlineage.io/spec/facets/1-1-1/ProcessingEngineRunFacet.json", version: "1.8.2", name: "dbt", openlineageAdapterVersion: "1.23.0" },
        parent: { _producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt", _schemaURL: "https://openlineage.io/spec/facets/1-0-1/ParentRunFacet.json", run: { runId: "0190a3c4-1f2e-7d00-8000-000000000099" }, job: { namespace: "dbt", name: "dbt-run-reporting" } },
      },
    },
    job: {
      namespace: "dbt",
      name: "reporting.marts.daily_revenue",
      facets: {
        jobType: { _producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt", _schemaURL: "https://openlineage.io/spec/facets/2-0-2/JobTypeJobFacet.json", processingType: "BATCH", integration: "DBT", jobType: "MODEL" },
        sql: { _producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt", _schemaURL: "https://openlineage.io/spec/facets/1-0-1/SQLJobFacet.json", query: "select order_date, sum(amount) as revenue from shop.public.orders group by 1" },
      },
    },
    inputs: [
      {
        namespace: "postgres://db:5432",
        name: "shop.public.orders",
        facets: {
          dataSource: { _producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt", _schemaURL: "https://openlineage.io/spec/facets/1-0-1/DatasourceDatasetFacet.json", name: "postgres://db:5432", uri: "postgres://db:5432" },
          schema: {
            _producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt",
            _schemaURL: "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json",
            fields: [
              { name: "order_id", type: "uuid" },
              { name: "order_date", type: "date" },
              { name: "amount", type: "numeric" },
            ],
          },
        },
      },
    ],
    outputs: [
      {
        namespace: "bigquery",
        name: "acme.reports.daily_revenue",
        facets: {
          columnLineage: {
            _producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt",
            _schemaURL: "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
            fields: {
              order_date: { inputFields: [{ namespace: "postgres://db:5432", name: "shop.public.orders", field: "order_date", transformations: [{ type: "DIRECT", subtype: "IDENTITY", description: "", masking: false }] }] },
              revenue: { inputFields: [{ namespace: "postgres://db:5432", name: "shop.public.orders", field: "amount", transformations: [{ type: "DIRECT", subtype: "AGGREGATION", description: "sum", masking: false }] }] },
            },
          },
        },
        outputFacets: { outputStatistics: { _producer: "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt", _schemaURL: "https://openlineage.io/spec/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json", rowCount: 365 } },
      },
    ],
  };
}

/** The Airflow provider as a task starts and completes: a DAG task reading CRM accounts from MySQL. */
export function airflowEvent(runId: string, eventType: "START" | "COMPLETE", eventTime = "2026-06-01T05:00:00.000Z") {
  const producer = "https://github.com/apache/airflow/tree/providers-openlineage/1.14.0";
  return {
    ...runEvent(eventType, eventTime, producer, runId, {
      nominalTime: { _producer: producer, _schemaURL: "https://openlineage.io/spec/facets/1-0-1/NominalTimeRunFacet.json", nominalStartTime: "2026-06-01T05:00:00.000Z" },
      airflow: { _producer: producer, _schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunFacet", dag: { dag_id: "crm_sync", owner: "airflow" }, task: { task_id: "load_accounts", operator_class: "SQLExecuteQueryOperator" } },
    }),
    job: {
      namespace: "airflow_prod",
      name: "crm_sync.load_accounts",
      facets: { jobType: { _producer: producer, _schemaURL: "https://openlineage.io/spec/facets/2-0-2/JobTypeJobFacet.json", processingType: "BATCH", integration: "AIRFLOW", jobType: "TASK" } },
    },
    inputs: [{ namespace: "mysql://crm-db:3306", name: "crm.accounts", facets: {} }],
    outputs: [{ namespace: "postgres://db:5432", name: "shop.staging.accounts", facets: {} }],
  };
}

/** Spark's listener after a job: reads order files from S3 (s3a), writes the daily revenue table. */
export function sparkEvent(runId: string, eventTime = "2026-06-01T07:00:00.000Z") {
  const producer = "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/spark";
  return {
    ...runEvent("COMPLETE", eventTime, producer, runId, {
      spark_version: { _producer: producer, _schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet", "spark-version": "3.5.1" },
      processing_engine: { _producer: producer, _schemaURL: "https://openlineage.io/spec/facets/1-1-1/ProcessingEngineRunFacet.json", version: "3.5.1", name: "spark", openlineageAdapterVersion: "1.23.0" },
    }),
    job: { namespace: "spark_jobs", name: "revenue_app.execute_insert_into_hadoop_fs_relation_command", facets: {} },
    inputs: [{ namespace: "s3a://lake", name: "/orders/2026/06/01", facets: { schema: { _producer: producer, _schemaURL: "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json", fields: [{ name: "order_id", type: "string" }] } } }],
    outputs: [{ namespace: "bigquery", name: "acme.reports.daily_revenue", facets: {} }],
  };
}
