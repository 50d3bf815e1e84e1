/**
 * OpenLineage run events for the browser tests, shaped as the Airflow provider and Spark's
 * listener send them, naming the datasets of the demo organization's output ports (fixtures.ts):
 * an Airflow task that builds the orders table from the shipments database, and a Spark job that
 * reads the orders table for the revenue dashboard, with column lineage.
 */

const SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent";
const AIRFLOW = "https://github.com/apache/airflow/tree/providers-openlineage/1.14.0";
const SPARK = "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/spark";

export const ORDERS_TABLE = { namespace: "postgres://warehouse.internal:5432", name: "shop.orders.orders" };
export const AIRFLOW_JOB = { namespace: "airflow_prod", name: "orders_etl.load_orders" };
export const SPARK_JOB = { namespace: "spark_jobs", name: "revenue_app.execute_insert_into_hadoop_fs_relation_command" };

/** The Airflow task, as it starts or completes: parcels from the logistics database joined into the orders table. */
export function airflowLoadOrders(runId: string, eventType: "START" | "COMPLETE", eventTime: string) {
  return {
    eventType,
    eventTime,
    producer: AIRFLOW,
    schemaURL: SCHEMA_URL,
    run: {
      runId,
      facets: {
        nominalTime: { _producer: AIRFLOW, _schemaURL: "https://openlineage.io/spec/facets/1-0-1/NominalTimeRunFacet.json", nominalStartTime: eventTime },
        airflow: {
          _producer: AIRFLOW,
          _schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunFacet",
          dag: { dag_id: "orders_etl", owner: "payments" },
          task: { task_id: "load_orders", operator_class: "SQLExecuteQueryOperator" },
        },
      },
    },
    job: {
      ...AIRFLOW_JOB,
      facets: {
        jobType: { _producer: AIRFLOW, _schemaURL: "https://openlineage.io/spec/facets/2-0-2/JobTypeJobFacet.json", processingType: "BATCH", integration: "AIRFLOW", jobType: "TASK" },
        sql: { _producer: AIRFLOW, _schemaURL: "https://openlineage.io/spec/facets/1-0-1/SQLJobFacet.json", query: "insert into shop.orders.orders select o.*, p.shipped_at from shop.orders o left join logistics.parcels p using (order_id)" },
      },
    },
    inputs: [
      { namespace: "mysql://shop-db:3306", name: "shop.orders", facets: {} },
      { namespace: "mysql://logistics-db:3306", name: "logistics.parcels", facets: {} },
    ],
    outputs: eventType === "COMPLETE" ? [{ ...ORDERS_TABLE, facets: {} }] : [],
  };
}

/** Spark's listener after the revenue job: reads the orders table over JDBC, writes daily revenue files to S3 (s3a). */
export function sparkDailyRevenue(runId: string, eventTime: string) {
  return {
    eventType: "COMPLETE",
    eventTime,
    producer: SPARK,
    schemaURL: SCHEMA_URL,
    run: {
      runId,
      facets: {
        spark_version: { _producer: SPARK, _schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet", "spark-version": "3.5.1" },
        processing_engine: { _producer: SPARK, _schemaURL: "https://openlineage.io/spec/facets/1-1-1/ProcessingEngineRunFacet.json", version: "3.5.1", name: "spark", openlineageAdapterVersion: "1.23.0" },
      },
    },
    job: { ...SPARK_JOB, facets: { jobType: { _producer: SPARK, _schemaURL: "https://openlineage.io/spec/facets/2-0-2/JobTypeJobFacet.json", processingType: "BATCH", integration: "SPARK", jobType: "JOB" } } },
    inputs: [
      {
        ...ORDERS_TABLE,
        facets: {
          dataSource: { _producer: SPARK, _schemaURL: "https://openlineage.io/spec/facets/1-0-1/DatasourceDatasetFacet.json", name: ORDERS_TABLE.namespace, uri: ORDERS_TABLE.namespace },
          schema: {
            _producer: SPARK,
            _schemaURL: "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json",
            fields: [
              { name: "order_id", type: "string" },
              { name: "placed_at", type: "timestamp" },
              { name: "amount", type: "decimal(12,2)" },
            ],
          },
        },
      },
    ],
    outputs: [
      {
        namespace: "s3a://analytics-lake",
        name: "/revenue/daily",
        facets: {
          columnLineage: {
            _producer: SPARK,
            _schemaURL: "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
            fields: {
              day: { inputFields: [{ ...ORDERS_TABLE, field: "placed_at", transformations: [{ type: "DIRECT", subtype: "TRANSFORMATION", description: "date_trunc", masking: false }] }] },
              revenue: { inputFields: [{ ...ORDERS_TABLE, field: "amount", transformations: [{ type: "DIRECT", subtype: "AGGREGATION", description: "sum", masking: false }] }] },
            },
          },
        },
        outputFacets: { outputStatistics: { _producer: SPARK, _schemaURL: "https://openlineage.io/spec/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json", rowCount: 30, size: 4096 } },
      },
    ],
  };
}
