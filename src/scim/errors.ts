import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ScimError as PatchError } from "scim-patch";
import { Problem } from "../platform/errors.js";

export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
export const SCIM_CONTENT_TYPE = "application/scim+json; charset=utf-8";

/** RFC 7644 §3.12's scimType values this server answers with. */
export type ScimType = "invalidFilter" | "tooMany" | "uniqueness" | "mutability" | "invalidSyntax" | "invalidPath" | "noTarget" | "invalidValue" | "invalidVers";

/** An error answered as a SCIM error document (RFC 7644 §3.12), not as a problem document. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }
}

export const scimNotFound = (what: string, id: string) => new ScimError(404, `${what} '${id}' was not found.`);
export const scimInvalid = (detail: string, scimType: ScimType = "invalidValue") => new ScimError(400, detail, scimType);

/** Every error under /api/scim/v2, as a SCIM error document: the client's, the parser's, the policy's. */
export function scimErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  let status = 500;
  let detail = "The server failed to answer the request.";
  let scimType: string | undefined;
  if (error instanceof ScimError) {
    ({ status, detail, scimType } = error);
  } else if (error instanceof PatchError) {
    status = 400;
    detail = error.message || "The patch is not valid.";
    scimType = (error as unknown as { scimCode?: string }).scimCode ?? "invalidSyntax";
  } else if (error instanceof Problem) {
    status = error.status;
    detail = error.detail;
  } else if ((error as FastifyError).validation) {
    status = 400;
    detail = error.message;
    scimType = "invalidSyntax";
  } else if (typeof (error as FastifyError).statusCode === "number" && (error as FastifyError).statusCode! < 500) {
    status = (error as FastifyError).statusCode!;
    detail = error.message;
  } else {
    request.log.error({ err: error }, "SCIM request failed");
  }
  for (const [name, value] of Object.entries(error instanceof Problem ? (error.headers ?? {}) : {})) reply.header(name, value);
  return reply
    .code(status)
    .type(SCIM_CONTENT_TYPE)
    .send(JSON.stringify({ schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail }));
}
