import { AsyncLocalStorage } from "node:async_hooks";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * What operators scrape at `GET /metrics` (docs/security.md, "Metrics"): one registry per
 * process. Code that does the work counts into the instruments below; what only a running server
 * knows (held long polls, the database pool) is read when scraped from the sources a server adds.
 * Labels are route templates, status codes and organization ids — never a raw URL, a resource id
 * or anything else a client chose.
 */
export const registry = new Registry();

collectDefaultMetrics({ register: registry, prefix: "steward_", eventLoopMonitoringPrecision: 20 });

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: "steward_http_requests_total",
  help: "HTTP requests answered, by method, route template and status code.",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: "steward_http_request_duration_seconds",
  help: "Time to answer an HTTP request, by method, route template and status code.",
  labelNames: ["method", "route", "status"] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const workerTasks = new Histogram({
  name: "steward_worker_task_seconds",
  help: "Time from handing work to the worker threads to its result (queue wait included), by organization.",
  labelNames: ["organization"] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const workerInFlight = new Gauge({
  name: "steward_worker_tasks_in_flight",
  help: "Work queued or running on the worker threads, by organization.",
  labelNames: ["organization"] as const,
  registers: [registry],
});

export const eventsAppended = new Counter({
  name: "steward_feed_events_appended_total",
  help: "Events appended to the feed by this process (rate() gives the append rate).",
  registers: [registry],
});

export const schedulerLag = new Histogram({
  name: "steward_scheduler_lag_seconds",
  help: "How much later than planned the access scheduler started a pass.",
  buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
  registers: [registry],
});

/** What a running server reports when scraped. */
export interface MetricSource {
  heldLongPolls(): number;
  /** PostgreSQL: clients waiting for a pooled connection; undefined on SQLite. */
  poolWaiting(): number | undefined;
  poolTotal(): number | undefined;
  workerQueueDepth(): number;
}

const sources = new Set<MetricSource>();

/** Adds a server's source; the answer removes it again (on close). */
export function addSource(source: MetricSource): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

const sum = (read: (s: MetricSource) => number | undefined) => [...sources].reduce((n, s) => n + (read(s) ?? 0), 0);

new Gauge({
  name: "steward_long_polls_held",
  help: "Long polls of the feed held open right now.",
  registers: [registry],
  collect() {
    this.set(sum((s) => s.heldLongPolls()));
  },
});

new Gauge({
  name: "steward_worker_queue_depth",
  help: "Work waiting for a free worker thread.",
  registers: [registry],
  collect() {
    // One pool per process, whatever the number of servers in it.
    this.set(Math.max(0, ...[...sources].map((s) => s.workerQueueDepth())));
  },
});

new Gauge({
  name: "steward_database_pool_waiting",
  help: "Queries waiting for a PostgreSQL connection from the pool (0 on SQLite).",
  registers: [registry],
  collect() {
    this.set(sum((s) => s.poolWaiting()));
  },
});

new Gauge({
  name: "steward_database_pool_connections",
  help: "Open PostgreSQL connections of the pool (0 on SQLite).",
  registers: [registry],
  collect() {
    this.set(sum((s) => s.poolTotal()));
  },
});

/** The organization a request acts in, once it is authenticated; read by work it hands on (worker threads). */
export const requestContext = new AsyncLocalStorage<{ organizationId?: string }>();

/** Runs `work` as work of `organizationId` (for code that runs outside the request's async context, like body parsers). */
export function inOrganization<T>(organizationId: string | undefined, work: () => T): T {
  return requestContext.run({ organizationId }, work);
}

/** Times one piece of worker-thread work for the organization of the current request. */
export function trackWorkerTask(): () => void {
  const organization = requestContext.getStore()?.organizationId ?? "none";
  const stop = workerTasks.startTimer({ organization });
  workerInFlight.inc({ organization });
  return () => {
    stop();
    workerInFlight.dec({ organization });
  };
}
