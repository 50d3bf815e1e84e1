import { AsyncResource } from "node:async_hooks";
import type { App } from "../platform/http/types.js";
import { hashSecret, sameSecret } from "../platform/auth.js";
import { unauthenticated } from "../platform/errors.js";
import { addSource, httpDuration, httpRequests, registry, requestContext, type MetricSource } from "./registry.js";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The `Authorization: Bearer` token of a request, or undefined. */
function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * Counts every request by route template and status, and serves `GET /metrics` in Prometheus text
 * format to whoever presents METRICS_TOKEN as a bearer token (compared as SHA-256 hashes in
 * constant time). Without a token configured, nothing is served: the path is an ordinary 404.
 */
export function registerMetrics(app: App, options: { token?: string; source: MetricSource }): void {
  // Every request runs in a context that later learns its organization (see app.ts). Reading the
  // body happens in the socket's async context, so the handler re-enters the request's one.
  const scopes = new WeakMap<object, AsyncResource>();
  app.addHook("onRequest", (request, _reply, done) =>
    requestContext.run({}, () => {
      scopes.set(request, new AsyncResource("steward-request"));
      done();
    }),
  );
  app.addHook("preValidation", (request, _reply, done) => {
    const scope = scopes.get(request);
    if (scope) scope.runInAsyncScope(done);
    else done();
  });
  app.addHook("onResponse", async (request, reply) => {
    // The route template, never the URL: an unmatched path is `unmatched`, whatever was asked.
    const route = request.routeOptions.url ?? "unmatched";
    const labels = { method: METHODS.has(request.method) ? request.method : "other", route, status: String(reply.statusCode) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
  const removeSource = addSource(options.source);
  app.addHook("onClose", async () => {
    removeSource();
  });
  if (options.token === undefined) return;
  const expected = hashSecret(options.token);
  app.get("/metrics", { schema: { hide: true } }, async (request, reply) => {
    const token = bearer(request.headers.authorization);
    if (token === undefined || !sameSecret(hashSecret(token), expected)) {
      throw unauthenticated("GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.", { "www-authenticate": 'Bearer realm="metrics"' });
    }
    return reply.type(registry.contentType).header("cache-control", "no-store").send(await registry.metrics());
  });
}
