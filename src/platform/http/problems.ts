import type { FastifyError, FastifyReply, FastifyRequest, FastifySchemaValidationError } from "fastify";
import { badRequest, databaseUnavailable, type FieldViolation, methodNotAllowed, missing, Problem, problemTitle, problemType, ProblemWithMembers } from "../errors.js";
import { isDatabaseUnreachable } from "../database/unreachable.js";
import type { App } from "./types.js";
import { joinPath, renderPath } from "../paths.js";
import { positionViolations } from "./yaml-body.js";

export const PROBLEM_MEDIA_TYPE = "application/problem+json";

/** Sends a problem; a YAML body's violations get their line and column first (see `yaml-body.ts`). */
export async function sendProblem(reply: FastifyReply, request: FastifyRequest, problem: Problem): Promise<void> {
  const violations = problem.violations && problem.violations.length > 0 ? await positionViolations(request, problem.violations) : undefined;
  writeProblem(reply, request, problem, violations);
}

/** Sends a problem as it is, at once. */
export function writeProblem(reply: FastifyReply, request: FastifyRequest, problem: Problem, violations = problem.violations): FastifyReply {
  const body: Record<string, unknown> = {
    // Extension members first, so that none can stand in for a standard one.
    ...(problem instanceof ProblemWithMembers ? problem.members : {}),
    type: problemType(problem.status),
    title: problemTitle(problem.status),
    status: problem.status,
    detail: problem.detail,
    instance: request.url.split("?")[0],
  };
  if (violations && violations.length > 0) body.violations = violations;
  return reply.code(problem.status).headers(problem.headers).type(PROBLEM_MEDIA_TYPE).send(JSON.stringify(body));
}

/** `/schema/0/specification` → `schema[0].specification` */
export function pointerToPath(pointer: string): string {
  const segments = pointer
    .split("/")
    .slice(1)
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  return renderPath("", segments);
}

function violationsFrom(errors: FastifySchemaValidationError[], context: string): FieldViolation[] {
  const seen = new Set<string>();
  const violations: FieldViolation[] = [];
  for (const error of errors) {
    let field = pointerToPath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    if (error.keyword === "required" && typeof params.missingProperty === "string") field = joinPath(field, params.missingProperty);
    if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
      field = joinPath(field, params.additionalProperty);
    }
    let message = error.message ?? "is invalid";
    if (error.keyword === "enum" && Array.isArray(params.allowedValues)) message = `must be one of: ${params.allowedValues.join(", ")}`;
    // A choice of one value (`sort=name`) is a `const`: name the value, as for a longer list.
    if (error.keyword === "const" && typeof params.allowedValue === "string") message = `must be one of: ${params.allowedValue}`;
    if (field === "") field = context;
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push({ field, message });
  }
  return violations;
}

/** Client errors Fastify raises before a handler runs, in words a client can act on. */
function describeFastifyError(error: FastifyError, app: App, request: FastifyRequest): string {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE": {
      const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit;
      const name = request.url.startsWith("/auth/") ? "AUTH_BODY_LIMIT_BYTES" : "BODY_LIMIT_BYTES";
      return `The request body is larger than ${limit} bytes (${name}).`;
    }
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "The request body must be JSON (application/json), or YAML (application/yaml) where a catalog document is sent.";
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "The request says it carries JSON but its body is empty.";
    default:
      if (error instanceof SyntaxError || /JSON/i.test(error.message)) return `The request body is not valid JSON: ${error.message}`;
      return error.message;
  }
}

/**
 * A route's URL as a pattern of the paths it takes: `:param` one segment, a trailing `*` the rest
 * of the path (`rest`: what that rest must match), a trailing slash ignored as the router ignores it.
 */
function routePattern(url: string, rest: string): RegExp {
  const escaped = url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z0-9_-]+/g, "[^/]+");
  return new RegExp("^" + escaped.replace(/\\\*/g, rest) + "/?$");
}

export function registerProblemHandling(app: App): void {
  // 405 needs to know which methods a path does have; Fastify itself answers 404 for those.
  const routes: Array<{ method: string; pattern: RegExp }> = [];
  // Routes whose id is the rest of the path (`/api/tags/*`): the router does not route a path that
  // ends where the id would start, which names an empty id rather than another resource.
  const emptyRests: Array<{ method: string; pattern: RegExp }> = [];
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      routes.push({ method, pattern: routePattern(route.url, ".+") });
      if (route.url.endsWith("/*")) emptyRests.push({ method, pattern: routePattern(route.url, "") });
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0];
    if (emptyRests.some((r) => r.method === request.method && r.pattern.test(path))) {
      return writeProblem(reply, request, badRequest(`The path ${path} names an empty id: ${request.method} needs one after its last '/'.`));
    }
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      return writeProblem(reply, request, methodNotAllowed(`${request.method} is not allowed on ${path}. Allowed: ${allowed.join(", ")}.`, allowed.join(", ")));
    }
    return writeProblem(reply, request, missing(`There is nothing at ${request.method} ${path}.`));
  });

  // Async for the violations of a big YAML body, which are placed on a worker thread.
  app.setErrorHandler(async (error: FastifyError | Problem, request, reply) => {
    if (error instanceof Problem) return sendProblem(reply, request, error);
    if (error.validation) {
      const context = error.validationContext ?? "body";
      // No body at all where a document is needed: as malformed as an empty JSON body (json-body.ts).
      if (context === "body" && request.body === undefined) {
        return sendProblem(reply, request, badRequest("The request body is empty; this operation takes a document."));
      }
      const status = context === "body" ? 422 : 400;
      const what = context === "body" ? "The request body is not a valid resource." : `The request ${context === "params" ? "path" : context} is invalid.`;
      return sendProblem(reply, request, new Problem(status, what, violationsFrom(error.validation, context)));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendProblem(reply, request, new Problem(status, describeFastifyError(error, app, request)));
    if (isDatabaseUnreachable(error)) {
      request.log.warn({ err: error }, "the database is not reachable");
      return sendProblem(reply, request, databaseUnavailable());
    }
    request.log.error({ err: error }, "request failed");
    return sendProblem(reply, request, new Problem(status >= 500 && status < 600 ? status : 500, "Steward could not complete the request. The failure was logged."));
  });
}
