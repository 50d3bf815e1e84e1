import type { PrincipalScope } from "../platform/auth.js";

/**
 * What each scope may do at all, decided from the operation alone (method and route template),
 * before a body is read (docs/security.md, "Scopes"). Finer rules — which team owns what, which
 * side of an access may act — come after, in the other policies; this is the coarse gate that
 * keeps read-only and connector keys away from every change they are not made for.
 */

export interface Operation {
  method: string;
  /** The route template as registered, e.g. `/api/access/:id/provisioning/provisioning-started`. */
  route: string;
}

export type ScopeVerdict = { allowed: true } | { allowed: false; detail: string };

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** POSTs that change nothing: they judge or compare the document they are sent. */
export const READ_ONLY_POSTS: readonly string[] = ["/api/schemas/validate", "/api/datacontracts/:id/changes"];

/** What a `connector` key may change, besides reading: provisioning reports and its own state. */
export const CONNECTOR_CHANGES: ReadonlyArray<{ method: string; route: RegExp; what: string }> = [
  { method: "POST", route: /^\/api\/access\/:id\/provisioning\/[a-z-]+$/, what: "post provisioning reports" },
  { method: "PUT", route: /^\/api\/access\/:id\/provisioning$/, what: "replace a provisioning record" },
  { method: "PUT", route: /^\/api\/connectors\/:id$/, what: "write connector state" },
];

/** Resources only organization keys and owners may see at all, whatever the scope otherwise reads. */
const KEY_MANAGEMENT = /^\/api\/api-keys(\/|$)/;

const isRead = (op: Operation) => READS.has(op.method.toUpperCase()) || (op.method.toUpperCase() === "POST" && READ_ONLY_POSTS.includes(op.route));

export function scopePermits(scope: PrincipalScope, op: Operation): ScopeVerdict {
  const method = op.method.toUpperCase();
  switch (scope) {
    case "organization":
    case "team":
      return { allowed: true };
    case "organization_read":
    case "team_read":
      if (isRead(op)) return { allowed: true };
      return { allowed: false, detail: `A ${scope} principal reads and changes nothing: ${method} ${op.route} is a change (rule: read-only scopes only read).` };
    case "connector":
      if (KEY_MANAGEMENT.test(op.route)) return { allowed: false, detail: "A connector key cannot see or manage API keys (rule: a connector reads, reports provisioning and keeps its state)." };
      if (isRead(op) || CONNECTOR_CHANGES.some((c) => c.method === method && c.route.test(op.route))) return { allowed: true };
      return {
        allowed: false,
        detail: `A connector key may read, ${CONNECTOR_CHANGES.map((c) => c.what).join(", ")}; not ${method} ${op.route} (rule: a connector reads, reports provisioning and keeps its state).`,
      };
  }
}
