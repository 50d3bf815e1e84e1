import { hash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Who is making a request: an API key, or a person signed in to the web app. `organization`
 * scope may do everything in the organization; `team` scope acts for the teams listed;
 * `team_read` (a read-only team key) and `organization_read` read the organization and change
 * nothing; `connector` reads, reports provisioning and keeps connector state (docs/security.md).
 * A key bound to a person (`user`, `user_read`) becomes that person's principal.
 */
export interface Principal {
  organizationId: string;
  scope: PrincipalScope;
  /** The teams a team-scoped principal acts for: a team key's one team, or a person's teams. */
  teamIds: readonly string[];
  /** Set when the request carries an API key. */
  keyId?: string;
  /** Set when the request comes from a signed-in person. */
  userId?: string;
  /**
   * A person's permissions per team, from their role in each team's document and the
   * organization's team roles (src/policies/team-roles.ts). Absent for keys and owners.
   */
  teamPermissions?: Readonly<Record<string, readonly string[]>>;
  /** A person's role (its name) in each of their teams; absent for keys and owners. */
  teamRoles?: Readonly<Record<string, string>>;
}

export type PrincipalScope = "organization" | "organization_read" | "team" | "team_read" | "connector";

export const SECRET_PREFIX = "stw_";

/** A new API key secret: 32 random bytes behind a prefix that secret scanners can recognise. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64url");
}

/** Hashed on every request that carries a key, so in one shot (no Hash object to build). */
export function hashSecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** Compares two secrets (or their hashes) in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The key a request carries, from `x-api-key` or `Authorization: Bearer`. */
export function presentedSecret(headers: Record<string, string | string[] | undefined>): string | undefined {
  const apiKey = headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey.trim() !== "") return apiKey.trim();
  const authorization = headers.authorization;
  if (typeof authorization === "string") {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return undefined;
}
