import pg from "pg";
import { Unreachable } from "./connections.js";
import { Refusal } from "./trust.js";

/**
 * What the access's provisioning record says went wrong. Written for the teams that read the
 * catalog, so it never carries what a network error knows (addresses, ports, "refused" versus
 * "timed out"): that would turn the connector into a probe. The operator's log has the rest.
 */
export function diagnosticsOf(error: unknown): { message: string; code?: string } {
  if (error instanceof Refusal) return { message: error.message };
  if (error instanceof Unreachable) return { message: `The connector could not connect to the configured server '${error.server}'; the operator's log has the details.` };
  if (error instanceof pg.DatabaseError && typeof error.code === "string") {
    const code = error.code;
    if (code === "57014") return { message: "A statement ran longer than the connector's statement timeout.", code };
    if (code === "55P03") return { message: "A lock was not granted within the connector's lock timeout.", code };
    // Classes 42 and 3F (a missing object or schema, a missing privilege) are about the mapped object itself.
    if (code.startsWith("42") || code.startsWith("3F")) return { message: error.message, code };
    return { message: "The database refused the change; the operator's log has the details.", code };
  }
  return { message: "The connector could not complete the change; the operator's log has the details." };
}

/** The full story, for the operator's log only: the cause chain's messages (pg never puts passwords in them). */
export function logDetail(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error && parts.length < 4; e = e.cause) parts.push(e.message);
  return parts.join(": ") || String(error);
}
