import { v7 as uuidv7 } from "uuid";
import { hashSecret, newSecret, sameSecret, type Principal } from "../../platform/auth.js";
import { parseInstant, type Clock } from "../../platform/clock.js";
import type { Database, Executor } from "../../platform/database/index.js";
import { invalid, notFound, type FieldViolation } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import { KeyCache } from "./key-cache.js";
import { KeyLease, LEASE_MS } from "./key-lease.js";
import { principalOf } from "../../events/log.js";
import { apiKeyRepository, type ApiKeyRow } from "./repository.js";
import { personKeyPrincipal } from "../people/principal.js";
import { normalizeEmail } from "../people/addresses.js";
import { peopleRepository } from "../people/repository.js";

/** The account id of a member of the organization named by id or email address, or null. */
async function memberAccountId(ex: Executor, organizationId: string, person: string): Promise<string | null> {
  if (person.includes("@")) return (await peopleRepository.membershipByEmail(ex, organizationId, normalizeEmail(person)))?.userId ?? null;
  return (await peopleRepository.membership(ex, organizationId, person)) ? person : null;
}

export type ApiKeyScope = ApiKeyRow["scope"];

export interface ApiKeyInput {
  displayName?: string;
  scope: ApiKeyScope;
  teamId?: string | null;
  /** For `user` and `user_read`: the person's account id or email address. */
  userId?: string | null;
  expiresAt?: string | null;
}

export interface ApiKeyView {
  /** The reference product's name for the id; both carry the same value. */
  organizationApiKeyId: string;
  id: string;
  displayName: string;
  scope: ApiKeyScope;
  teamId: string | null;
  userId: string | null;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
}

export interface CreatedApiKey extends ApiKeyView {
  /** The secret, returned this once. */
  key: string;
}

/** `lastUsedAt` is written at most this often per key, so authentication stays a read. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function presentApiKey(row: ApiKeyRow): ApiKeyView {
  return {
    organizationApiKeyId: row.id,
    id: row.id,
    displayName: row.display_name,
    scope: row.scope,
    teamId: row.team_id,
    userId: row.user_id ?? null,
    expiresAt: row.expires_at_input,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    revokedBy: row.revoked_by,
  };
}

/** A readable name for a key created without one, e.g. "team_read key of team 'sales', 2026-06-01". */
function defaultName(scope: ApiKeyScope, teamId: string | null, now: Date): string {
  const day = now.toISOString().slice(0, 10);
  return teamId === null ? `${scope} key, ${day}` : `${scope} key of team '${teamId}', ${day}`;
}

/**
 * When a key stops working. A plain date keeps it valid through that whole day (UTC), as in the
 * reference product; a date-time is the instant itself.
 */
function expiryOf(text: string): string | null {
  const instant = parseInstant(text);
  if (instant === null || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return instant;
  return new Date(Date.parse(instant) + 86_400_000).toISOString();
}

export class ApiKeyService {
  private readonly cache: KeyCache;
  /** PostgreSQL: when remembered keys may be used; fed through the process notification listener (keyLeaseFeed). */
  readonly lease: KeyLease | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {
    this.lease = database.dialect === "postgres" ? new KeyLease() : undefined;
    this.cache = new KeyCache(database.keyStamp ?? (this.lease ? () => this.lease!.stamp() : undefined));
  }

  /** Creates a key in `organizationId`; also used by the CLI and bootstrap, which have no principal. */
  async createKey(ex: Executor, organizationId: string, input: ApiKeyInput): Promise<CreatedApiKey> {
    const violations: FieldViolation[] = [];
    const teamId = input.teamId ?? null;
    if (input.displayName !== undefined && input.displayName.trim() === "") violations.push({ field: "displayName", message: "must not be empty" });
    const teamScoped = input.scope === "team" || input.scope === "team_read";
    if (teamScoped && teamId === null) {
      violations.push({ field: "teamId", message: `is required when scope is ${input.scope}` });
    }
    if (!teamScoped && teamId !== null) {
      violations.push({ field: "teamId", message: `must be absent when scope is ${input.scope}` });
    }
    if (teamScoped && teamId !== null && !(await resourceRepository.get(ex, organizationId, "team", teamId))) {
      violations.push({ field: "teamId", message: `no team '${teamId}' exists in this organization` });
    }
    const personScoped = input.scope === "user" || input.scope === "user_read";
    const person = input.userId ?? null;
    let userId: string | null = null;
    if (personScoped && person === null) violations.push({ field: "userId", message: `is required when scope is ${input.scope}` });
    if (!personScoped && person !== null) violations.push({ field: "userId", message: `must be absent when scope is ${input.scope}` });
    if (personScoped && person !== null) {
      userId = await memberAccountId(ex, organizationId, person);
      if (userId === null) violations.push({ field: "userId", message: "names no member of this organization (an account id or email address)" });
    }
    const now = this.clock.now();
    let expiresAt: string | null = null;
    if (input.expiresAt != null) {
      expiresAt = expiryOf(input.expiresAt);
      if (expiresAt === null) {
        violations.push({ field: "expiresAt", message: "must be an ISO 8601 date-time or date" });
      } else if (expiresAt <= now.toISOString()) {
        violations.push({ field: "expiresAt", message: "must be in the future" });
      }
    }
    if (violations.length > 0) throw invalid("The API key cannot be created as requested.", violations);

    const key = newSecret();
    const row: ApiKeyRow = {
      id: uuidv7(),
      organization_id: organizationId,
      display_name: input.displayName?.trim() || defaultName(input.scope, teamId, now),
      scope: input.scope,
      team_id: teamId,
      user_id: userId,
      secret_hash: hashSecret(key),
      expires_at_input: input.expiresAt ?? null,
      expires_at: expiresAt,
      created_at: now.toISOString(),
      last_used_at: null,
      revoked_at: null,
      revoked_by: null,
    };
    await apiKeyRepository.insert(ex, row);
    return { ...presentApiKey(row), key };
  }

  async create(p: Principal, input: ApiKeyInput): Promise<CreatedApiKey> {
    policy.manageApiKeys(p);
    return this.database.db.transaction().execute((trx) => this.createKey(trx, p.organizationId, input));
  }

  /** Revoked keys stay listed, and keys can always be made: the list is read a page at a time. */
  async list(p: Principal, page: { offset: number; limit: number }): Promise<ApiKeyView[]> {
    policy.manageApiKeys(p);
    const rows = await apiKeyRepository.list(this.database.db, p.organizationId, page);
    return rows.map(presentApiKey);
  }

  async get(p: Principal, id: string): Promise<ApiKeyView> {
    policy.manageApiKeys(p);
    const row = await apiKeyRepository.findById(this.database.db, p.organizationId, id);
    if (!row) throw notFound("API key", id);
    return presentApiKey(row);
  }

  /** Revokes a key; the record stays, with when and by whom. Revoking a revoked key changes nothing. */
  async revoke(p: Principal, id: string): Promise<void> {
    policy.manageApiKeys(p);
    if (!(await apiKeyRepository.findById(this.database.db, p.organizationId, id))) throw notFound("API key", id);
    await apiKeyRepository.revoke(this.database.db, p.organizationId, id, this.clock.now().toISOString(), principalOf(p));
    this.cache.forgetAll();
    // Every other process either has heard of the revocation once this wait is over, or no longer
    // trusts what it remembers (key-lease.ts): only then is the revocation answered.
    if (this.lease) await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
  }

  /** The principal behind a secret, or undefined when it is unknown, revoked or expired. */
  async authenticate(secret: string): Promise<Principal | undefined> {
    const hash = hashSecret(secret);
    let row = this.cache.get(hash);
    if (!row) {
      const mark = this.cache.mark();
      row = await apiKeyRepository.findByHash(this.database.db, hash);
      if (row) this.cache.remember(hash, row, mark);
    }
    if (!row || !sameSecret(row.secret_hash, hash) || row.revoked_at !== null) return undefined;
    const now = this.clock.now();
    if (row.expires_at !== null && row.expires_at <= now.toISOString()) return undefined;
    if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      await apiKeyRepository.touch(this.database.db, row.id, now.toISOString());
      // The remembered row too: on PostgreSQL recording use does not forget remembered keys, and a
      // stale time would make every following request record it again.
      row.last_used_at = now.toISOString();
    }
    return this.principalOf(row);
  }

  /** What a key may do: its scope, or for a key bound to a person, that person's principal now (people/principal.ts). */
  private async principalOf(row: ApiKeyRow): Promise<Principal | undefined> {
    const { scope } = row;
    if (scope === "user" || scope === "user_read") {
      if (row.user_id === null) return undefined;
      const person = await personKeyPrincipal(this.database.db, row.organization_id, row.user_id, scope === "user_read");
      return person && { ...person, keyId: row.id };
    }
    return { organizationId: row.organization_id, keyId: row.id, scope, teamIds: row.team_id === null ? [] : [row.team_id] };
  }
}
