/**
 * What can be decided before a request's body is read (docs/security.md, "Resource limits"):
 * a key whose scope changes nothing is refused every change from the method and the operation
 * alone, so it never makes the server parse a body it would refuse anyway.
 */
import type { Principal } from "../platform/auth.js";
import { forbidden } from "../platform/errors.js";

/** Scopes that read and change nothing. */
const READ_ONLY_SCOPES: ReadonlySet<Principal["scope"]> = new Set(["team_read"]);

/** Methods that change nothing. */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/** Operations sent with a body that read and change nothing: comparing a proposal, checking a schema. */
const READS_WITH_A_BODY: ReadonlySet<string> = new Set(["previewDataContractChanges", "validateSchema"]);

/** Throws the 403 of a change a read-only principal attempts; `operationId` names the route's operation. */
export function refuseBeforeBody(p: Principal, method: string, operationId: string | undefined): void {
  if (!READ_ONLY_SCOPES.has(p.scope) || SAFE_METHODS.has(method)) return;
  if (operationId !== undefined && READS_WITH_A_BODY.has(operationId)) return;
  throw forbidden("A read-only key may read the organization but change nothing.");
}
