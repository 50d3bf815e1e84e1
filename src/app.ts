import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { LogController, type FastifyServerOptions } from "fastify";
import { eventRoutes } from "./events/routes.js";
import { eventComponentSchemas } from "./events/shapes.js";
import { apiKeyRoutes } from "./modules/api-keys/routes.js";
import { teamRoutes } from "./modules/teams/routes.js";
import { connectorRoutes } from "./modules/connectors/routes.js";
import { dataProductRoutes } from "./modules/dataproducts/routes.js";
import { dataContractRoutes } from "./modules/datacontracts/routes.js";
import { contractVersionRoutes } from "./modules/datacontracts/versions/routes.js";
import { schemaRoutes } from "./modules/schema-validation/routes.js";
import { accessRoutes } from "./modules/access/routes.js";
import { assetRoutes } from "./modules/assets/routes.js";
import { sourceSystemRoutes } from "./modules/sourcesystems/routes.js";
import { definitionRoutes } from "./modules/definitions/routes.js";
import { tagRoutes } from "./modules/tags/routes.js";
import { policyRoutes } from "./modules/policies/routes.js";
import { classificationSchemeRoutes } from "./modules/classification-schemes/routes.js";
import { certificationRoutes } from "./modules/certifications/routes.js";
import { testResultRoutes } from "./modules/test-results/routes.js";
import { searchRoutes } from "./modules/search/routes.js";
import { lineageRoutes } from "./modules/lineage/routes.js";
import { usageRoutes } from "./modules/usage/routes.js";
import { mcpRoutes } from "./mcp/routes.js";
import { notificationChannelRoutes } from "./modules/notification-channels/routes.js";
import { notificationRoutes } from "./modules/notifications/routes.js";
import { presentedSecret } from "./platform/auth.js";
import { ping } from "./platform/database/index.js";
import { badRequest, databaseUnavailable, forbidden, problemTitle, problemType, unauthorized } from "./platform/errors.js";
import { scopePermits } from "./policies/scopes.js";
import { registerMetrics } from "./metrics/http.js";
import { requestContext } from "./metrics/registry.js";
import type { Socket } from "node:net";
import { registerProblemHandling, writeProblem } from "./platform/http/problems.js";
import { ProblemSchema } from "./platform/http/shapes.js";
import { applyOperationId } from "./platform/http/operation-ids.js";
import { logDestination } from "./platform/log.js";
import type { App } from "./platform/http/types.js";
import { registerJsonBodies } from "./platform/http/json-body.js";
import { registerYamlBodies } from "./platform/http/yaml-body.js";
import { handleOversizedBodies } from "./platform/http/oversized-bodies.js";
import { createAjv } from "./platform/validation.js";
import type { Services } from "./services.js";
import { authRoutes, memberRoutes, sessionToken } from "./modules/people/routes.js";
import { webAppRoutes } from "./webapp/static.js";
import { withPlainDotIds } from "./platform/http/page-paths.js";
import { ConnectionGuard } from "./platform/http/connections.js";
import { asOwner } from "./workers/shares.js";
import { identitySettingsRoutes, ssoRoutes } from "./identity/routes.js";
import { scimRoutes } from "./scim/routes.js";
import { organizationRoutes } from "./identity/member-routes.js";

import { VERSION } from "./platform/version.js";

export { VERSION };

/**
 * Routes whose last segment is "the rest of the path" (tag ids may contain `/`) are described
 * with a named parameter, as in the reference product: `{id}`, or `{tagId}` after an `{id}`.
 */
function describeRestOfPathIds({ schema, url }: { schema: Record<string, any>; url: string }) {
  if (!url.endsWith("/*")) return { schema, url };
  const name = url.includes(":id/") ? "tagId" : "id";
  const params = schema?.params;
  const renamed = params?.properties?.["*"]
    ? { ...params, properties: Object.fromEntries(Object.entries(params.properties).map(([k, v]) => [k === "*" ? name : k, v])), required: (params.required ?? []).map((k: string) => (k === "*" ? name : k)) }
    : params;
  return { schema: { ...schema, params: renamed }, url: `${url.slice(0, -1)}:${name}` };
}

/** What the request log records: never a query's secrets (a setup link's token). */
function requestForLog(request: { method: string; url: string; ip?: string }) {
  return { method: request.method, url: request.url.replace(/([?&]token=)[^&]*/gi, "$1[redacted]"), remoteAddress: request.ip };
}

/**
 * Errors Node raises before a request reaches Fastify (a request past its timeout, a malformed
 * request line): answered as a problem document when nothing was written yet, then the
 * connection is closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const timeout = error.code === "ERR_HTTP_REQUEST_TIMEOUT";
  const status = timeout ? 408 : error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
  const detail = timeout
    ? "The request was not received in time (REQUEST_TIMEOUT_MS / HEADERS_TIMEOUT_MS); the connection is closed."
    : "The request is not valid HTTP.";
  const body = JSON.stringify({ type: problemType(status), title: problemTitle(status), status, detail, instance: "" });
  if (socket.writable && socket.bytesWritten === 0) {
    const reason = timeout ? "Request Timeout" : status === 431 ? "Request Header Fields Too Large" : "Bad Request";
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Builds the HTTP application over ready services; listening is the caller's business. */
export async function buildApp(services: Services, options: { logger?: FastifyServerOptions["logger"] } = {}): Promise<App> {
  const { config } = services;
  const { limits } = config;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel, serializers: { req: requestForLog }, stream: logDestination() },
    // One line per request, written when it completes (below), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // A client must send its whole request, body included, within the timeout, or get a 408 and
    // lose the connection: slow senders cannot hold connections open (docs/product.md §1).
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      // How often Node looks for requests past their timeouts (its default is every 30 s).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    clientErrorHandler: answerClientError,
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true },
    // Browsers cannot send an id `.` or `..` as a path segment; the web app escapes them (page-paths.ts).
    rewriteUrl: (request) => withPlainDotIds(request.url ?? "/"),
    return503OnClosing: true,
    forceCloseConnections: "idle",
    // URLs the router cannot decode (a stray `%`) are client errors like any other.
    frameworkErrors: (error, request, reply) =>
      writeProblem(reply, request, badRequest(error.code === "FST_ERR_BAD_URL" ? "The request URL is not valid." : error.message)),
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  registerProblemHandling(app);
  registerMetrics(app, {
    token: config.metricsToken,
    source: {
      heldLongPolls: () => services.feed.heldLongPolls,
      poolWaiting: () => services.database.pool?.waitingCount,
      poolTotal: () => services.database.pool?.totalCount,
      workerQueueDepth: () => services.parsing.workers.queueDepth(),
    },
  });
  handleOversizedBodies(app, { bodyBytes: config.bodyLimitBytes, authBodyBytes: limits.authBodyBytes });
  // The router refuses a path it cannot decode; a query string with a broken escape (`%ZZ`, half
  // a UTF-8 character) would be read with the escape left in, so it is refused the same way.
  app.addHook("onRequest", (request, _reply, done) => {
    const start = request.url.indexOf("?");
    if (start === -1 || !request.url.includes("%", start)) return done();
    try {
      decodeURIComponent(request.url.slice(start + 1));
    } catch {
      return done(badRequest("The request's query string is not valid: it has a malformed percent-encoding."));
    }
    done();
  });
  app.addHook("onResponse", async (request, reply) => {
    request.log.info({ req: request, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, "request");
  });
  app.server.maxConnections = limits.connections;
  // Connections per client address, idle ones without a key, and repeated 401s (src/platform/http/connections.ts).
  const connections = new ConnectionGuard(limits.connectionsPerClient, limits.unauthenticatedIdleMs);
  connections.attach(app.server);
  app.addHook("onSend", async (request, reply) => {
    if (reply.statusCode === 401 && connections.unauthorized(request.raw.socket)) reply.header("connection", "close");
    // Tells keep-alive clients when a connection without a key will be closed, so they do not reuse it just then.
    else if (!request.principal) reply.header("keep-alive", `timeout=${Math.max(1, Math.floor(limits.unauthenticatedIdleMs / 1000))}`);
  });
  // Routes that need no key read only small bodies: a stranger's megabytes are not parsed.
  app.addHook("onRoute", (route) => {
    if (route.url.startsWith("/auth/") && route.bodyLimit === undefined) route.bodyLimit = limits.authBodyBytes;
  });

  // Bodies are validated strictly; query strings and paths arrive as text and are coerced.
  const bodyAjv = createAjv({ coerceTypes: false, useDefaults: false, removeAdditional: false });
  const textAjv = createAjv({ coerceTypes: "array", useDefaults: true, removeAdditional: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === "body" ? bodyAjv : textAjv).compile(schema));

  // JSON only: a text/plain body is a 415, not a string that fails validation.
  app.removeContentTypeParser("text/plain");
  registerJsonBodies(app);
  registerYamlBodies(app, limits.schemaParseTimeoutMs, services.parsing.workers);

  app.addHook("onRoute", applyOperationId);
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Steward API",
        version: VERSION,
        description: "Data products, data contracts, access requests and the CloudEvents feed of a Steward organization.",
      },
      servers: [{ url: config.appUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
          bearer: { type: "http", scheme: "bearer" },
          // The web app's session (see /auth/sign-in); changes also need the x-csrf-token header.
          session: { type: "apiKey", in: "cookie", name: "steward_session" },
        },
        schemas: eventComponentSchemas() as Record<string, never>,
      },
      security: [{ apiKey: [] }, { bearer: [] }, { session: [] }],
    },
    transform: describeRestOfPathIds,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`) },
  });

  app.get("/health/live", { schema: { hide: true } }, async () => ({ status: "ok" }));
  app.get("/health/ready", { schema: { hide: true } }, async () => {
    try {
      await ping(services.database.db);
    } catch {
      throw databaseUnavailable();
    }
    return { status: "ok" };
  });
  app.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  app.get("/api/openapi.yaml", { schema: { hide: true } }, async (_request, reply) =>
    reply.type("application/yaml").send(app.swagger({ yaml: true })),
  );

  await app.register(async (api: App) => {
    api.addHook("onRequest", async (request) => {
      const secret = presentedSecret(request.headers);
      if (secret === undefined && request.headers.cookie !== undefined) {
        // No key: a person signed in to the web app, whose changes must carry the CSRF token.
        request.principal = await services.people.sessions.authenticateCookie(sessionToken(request), request.method, request.headers["x-csrf-token"]);
        return;
      }
      const principal = secret === undefined ? undefined : await services.apiKeys.authenticate(secret);
      if (!principal) throw unauthorized();
      request.principal = principal;
    });
    // Once the caller is known: its connection counts as authenticated (src/platform/http/connections.ts),
    // work it hands on is counted for its organization (metrics), and what its key's scope lets it do at
    // all is decided from the route alone, before any body is read (src/policies/scopes.ts).
    api.addHook("onRequest", async (request) => {
      if (!request.principal) return;
      connections.authenticated(request.raw.socket);
      const context = requestContext.getStore();
      if (context) context.organizationId = request.principal.organizationId;
      // A path no route matches is a 404 for every scope.
      if (request.routeOptions.url === undefined) return;
      const verdict = scopePermits(request.principal.scope, { method: request.method, route: request.routeOptions.url });
      if (!verdict.allowed) throw forbidden(verdict.detail);
    });
    // Work on the worker threads waits in its organization's line (src/workers/shares.ts).
    api.addHook("preHandler", (request, _reply, done) => (request.principal ? asOwner(request.principal.organizationId, () => done()) : done()));
    memberRoutes(api, services.people);
    apiKeyRoutes(api, services.apiKeys);
    teamRoutes(api, services.teams, config);
    dataProductRoutes(api, services.dataProducts, config);
    dataContractRoutes(api, services.dataContracts, config, services.database, services.parsing);
    contractVersionRoutes(api, services.contractVersions);
    schemaRoutes(api, services.parsing);
    accessRoutes(api, services.access, config);
    connectorRoutes(api, services.connectors, config);
    assetRoutes(api, services.assets, config);
    sourceSystemRoutes(api, services.sourceSystems, config);
    definitionRoutes(api, services.definitions, config);
    tagRoutes(api, services.tags, config);
    testResultRoutes(api, services.testResults, config);
    policyRoutes(api, services.policies, services.policyDryRun, services.accessPolicyPreview, config);
    classificationSchemeRoutes(api, services.classificationSchemes, config);
    certificationRoutes(api, services.certifications, config);
    eventRoutes(api, services.feed);
    searchRoutes(api, services.search);
    lineageRoutes(api, services.lineage, services.database);
    usageRoutes(api, services.usage);
    notificationChannelRoutes(api, services.notificationChannels);
    notificationRoutes(api, services.notifications);
    identitySettingsRoutes(api, services.identity.settings);
    scimRoutes(api, services.identity.scimUsers, services.identity.scimGroups, config.appUrl);
    organizationRoutes(api, services.people.members, services.identity.teamRoles);
  });

  // AI agents: the Model Context Protocol, with an API key, doing no more than the key could.
  mcpRoutes(app, services);

  // People sign in here; the web app (served at /) then uses /api with the session cookie.
  authRoutes(app, services.people, config, services.identity.oidc && ((ended) => services.identity.oidc!.endSessionUrl(ended.idToken)));
  ssoRoutes(app, services.identity.oidc, config);
  await webAppRoutes(app, config);

  // On shutdown: answer held long polls now, and close every connection after its response, so
  // keep-alive sockets of requests still in flight do not hold the process open.
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
    services.feed.releaseAll();
  });
  app.addHook("onClose", async () => services.parsing.workers.close());
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });
  return app;
}
