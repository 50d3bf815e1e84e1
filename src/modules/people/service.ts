import { randomBytes } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { hashSecret, sameSecret, type Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Config } from "../../platform/config.js";
import type { Database, Executor } from "../../platform/database/index.js";
import { conflict, forbidden, invalid, notFound, Problem, unauthorized } from "../../platform/errors.js";
import { personScope, policy } from "../../policies/index.js";
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "./passwords.js";
import { peopleRepository, type MemberRow, type Role, type SessionRow, type UserRow } from "./repository.js";

/** A session is good for 12 hours after its last use, and 7 days at most. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
const SESSION_TOUCH_MS = 60_000;
/** Setup links work once, within 24 hours. */
export const SETUP_LINK_MS = 24 * 60 * 60 * 1000;
/** Failed sign-ins per address before it is paused, and for how long. */
const MAX_FAILURES = 10;
const FAILURE_WINDOW_MS = 15 * 60 * 1000;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface OrganizationMembership {
  id: string;
  name: string;
  role: Role;
}

export interface SessionView {
  user: { id: string; email: string };
  organizations: OrganizationMembership[];
  currentOrganizationId: string | null;
  /** The role in the current organization and what it lets the person do. */
  role: Role | null;
  scope: ReturnType<typeof personScope> | null;
  teamIds: string[];
  csrfToken: string;
  expiresAt: string;
}

export interface MemberView {
  email: string;
  userId: string;
  role: Role;
  createdAt: string;
  /** False until the person has chosen a password through their setup link. */
  passwordSet: boolean;
  /** A one-time link for the person to choose a password; present only in the response that made it. */
  setupUrl?: string;
}

export interface SetupView {
  organizationName: string;
  email: string | null;
  role: Role;
  expiresAt: string;
}

export interface SignedIn {
  token: string;
  view: SessionView;
}

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function checkEmail(email: string, field = "email"): string {
  const normalized = normalizeEmail(email);
  if (!EMAIL.test(normalized) || normalized.length > 320) throw invalid("That is not an email address.", [{ field, message: "must be an email address" }]);
  return normalized;
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 1024) {
    throw invalid("The password is too short.", [{ field: "password", message: `must have ${MIN_PASSWORD_LENGTH} to 1024 characters` }]);
  }
}

/** Throws 403 unless the request echoes the session's CSRF token. */
function checkCsrf(session: SessionRow, header: string | string[] | undefined, what: string): void {
  if (typeof header !== "string" || !sameSecret(header, session.csrf_token)) {
    throw forbidden(`${what} must carry the session's CSRF token in the x-csrf-token header.`);
  }
}

const presentMember = (row: MemberRow): MemberView => ({ email: row.email, userId: row.userId, role: row.role, createdAt: row.createdAt, passwordSet: row.passwordSet });

/**
 * People of the web app: accounts with passwords, their organizations and roles, sessions and
 * one-time setup links. A signed-in person acts through a Principal like an API key does, so
 * every rule in src/policies applies to both alike.
 */
export class PeopleService {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly config: Config,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  // ---- principals -------------------------------------------------------------------------

  /**
   * What a person may do in an organization: owners act for the whole organization, members for
   * the teams whose documents list their address under `members`.
   */
  async principalFor(ex: Executor, organizationId: string, user: Pick<UserRow, "id" | "email">, role: Role): Promise<Principal> {
    const scope = personScope(role);
    if (scope === "organization") return { organizationId, scope, teamIds: [], userId: user.id };
    const email = normalizeEmail(user.email);
    const teamIds: string[] = [];
    for (const row of await peopleRepository.teamDocsMentioning(ex, organizationId, email)) {
      const members = (JSON.parse(row.doc) as { members?: unknown }).members;
      if (!Array.isArray(members)) continue;
      if (members.some((m) => typeof m?.emailAddress === "string" && normalizeEmail(m.emailAddress) === email)) teamIds.push(row.id);
    }
    return { organizationId, scope, teamIds, userId: user.id };
  }

  // ---- sessions ---------------------------------------------------------------------------

  private async loadSession(token: string | undefined): Promise<{ session: SessionRow; user: UserRow } | undefined> {
    if (!token || token.length > 200) return undefined;
    const db = this.database.db;
    const session = await peopleRepository.findSession(db, hashSecret(token));
    if (!session) return undefined;
    const now = this.clock.now();
    if (session.expires_at <= now.toISOString()) {
      await peopleRepository.deleteSession(db, session.id);
      return undefined;
    }
    const user = await peopleRepository.findUser(db, session.user_id);
    if (!user) return undefined;
    if (now.getTime() - Date.parse(session.last_seen_at) >= SESSION_TOUCH_MS) {
      const expiresAt = new Date(Math.min(now.getTime() + SESSION_IDLE_MS, Date.parse(session.created_at) + SESSION_MAX_MS)).toISOString();
      await peopleRepository.touchSession(db, session.id, now.toISOString(), expiresAt);
      session.last_seen_at = now.toISOString();
      session.expires_at = expiresAt;
    }
    return { session, user };
  }

  /**
   * The principal of a request that carries a session cookie instead of an API key. Mutating
   * requests must echo the session's CSRF token in `x-csrf-token`; a missing or invalid session is
   * the same 401 as a missing key.
   */
  async authenticateCookie(token: string | undefined, method: string, csrfHeader: string | string[] | undefined): Promise<Principal> {
    const loaded = await this.loadSession(token);
    if (!loaded) throw unauthorized();
    const { session, user } = loaded;
    if (MUTATING.has(method.toUpperCase())) checkCsrf(session, csrfHeader, "A change made with a session cookie");
    if (session.organization_id === null) throw unauthorized();
    const role = await peopleRepository.membership(this.database.db, session.organization_id, user.id);
    if (!role) throw unauthorized();
    return this.principalFor(this.database.db, session.organization_id, user, role);
  }

  /** Checks the CSRF token of a session-authenticated call outside /api (sign-out, switching organization). */
  async requireSession(token: string | undefined, csrfHeader: string | string[] | undefined): Promise<{ session: SessionRow; user: UserRow }> {
    const loaded = await this.loadSession(token);
    if (!loaded) throw new Problem(401, "You are not signed in.");
    checkCsrf(loaded.session, csrfHeader, "This call");
    return loaded;
  }

  private async view(session: SessionRow, user: UserRow): Promise<SessionView> {
    const db = this.database.db;
    const organizations = (await peopleRepository.memberships(db, user.id)).map((m) => ({ id: m.organizationId, name: m.organizationName, role: m.role }));
    let current = organizations.find((o) => o.id === session.organization_id);
    if (!current && organizations.length > 0) {
      // The organization the session was in is gone, or the person was removed from it.
      current = organizations[0];
      await peopleRepository.setSessionOrganization(db, session.id, current.id);
    }
    const principal = current ? await this.principalFor(db, current.id, user, current.role) : undefined;
    return {
      user: { id: user.id, email: user.email },
      organizations,
      currentOrganizationId: current?.id ?? null,
      role: current?.role ?? null,
      scope: current ? personScope(current.role) : null,
      teamIds: principal ? [...principal.teamIds] : [],
      csrfToken: session.csrf_token,
      expiresAt: session.expires_at,
    };
  }

  async session(token: string | undefined): Promise<SessionView | undefined> {
    const loaded = await this.loadSession(token);
    return loaded && this.view(loaded.session, loaded.user);
  }

  private async startSession(ex: Executor, user: UserRow, organizationId: string | null): Promise<{ token: string; session: SessionRow }> {
    const token = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    const session: SessionRow = {
      id: uuidv7(),
      token_hash: hashSecret(token),
      user_id: user.id,
      organization_id: organizationId,
      csrf_token: randomBytes(32).toString("base64url"),
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_IDLE_MS).toISOString(),
    };
    await peopleRepository.deleteExpiredSessions(ex, now.toISOString());
    await peopleRepository.insertSession(ex, session);
    return { token, session };
  }

  async signIn(input: { email: string; password: string; organizationId?: string }): Promise<SignedIn> {
    const email = normalizeEmail(input.email);
    const now = this.clock.now().getTime();
    const failed = this.failures.get(email);
    if (failed && now - failed.since < FAILURE_WINDOW_MS && failed.count >= MAX_FAILURES) {
      const retry = Math.ceil((failed.since + FAILURE_WINDOW_MS - now) / 1000);
      throw new Problem(429, "Too many failed sign-ins for this address. Try again later.", undefined, { "retry-after": String(retry) });
    }
    const db = this.database.db;
    const user = await peopleRepository.findUserByEmail(db, email);
    const ok = await verifyPassword(input.password, user?.password_hash ?? null);
    if (!user || !ok) {
      const entry = failed && now - failed.since < FAILURE_WINDOW_MS ? failed : { count: 0, since: now };
      entry.count += 1;
      this.failures.set(email, entry);
      if (this.failures.size > 10_000) this.failures.delete(this.failures.keys().next().value!);
      throw new Problem(401, "The email address or the password is not correct.");
    }
    this.failures.delete(email);
    const memberships = await peopleRepository.memberships(db, user.id);
    const organizationId = memberships.find((m) => m.organizationId === input.organizationId)?.organizationId ?? memberships[0]?.organizationId ?? null;
    const { token, session } = await this.startSession(db, user, organizationId);
    return { token, view: await this.view(session, user) };
  }

  async signOut(token: string | undefined, csrf: string | string[] | undefined): Promise<void> {
    const { session } = await this.requireSession(token, csrf);
    await peopleRepository.deleteSession(this.database.db, session.id);
  }

  async switchOrganization(token: string | undefined, csrf: string | string[] | undefined, organizationId: string): Promise<SessionView> {
    const { session, user } = await this.requireSession(token, csrf);
    const role = await peopleRepository.membership(this.database.db, organizationId, user.id);
    if (!role) throw notFound("Organization", organizationId);
    await peopleRepository.setSessionOrganization(this.database.db, session.id, organizationId);
    session.organization_id = organizationId;
    return this.view(session, user);
  }

  // ---- setup links ------------------------------------------------------------------------

  /** A one-time link to set a password; without `userId` the person also chooses the address (first start). */
  async createSetupLink(ex: Executor, organizationId: string, userId: string | null, role: Role): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    await peopleRepository.insertSetupToken(ex, {
      token_hash: hashSecret(token),
      organization_id: organizationId,
      user_id: userId,
      role,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SETUP_LINK_MS).toISOString(),
      used_at: null,
    });
    return `${this.config.appUrl}/setup?token=${token}`;
  }

  private async usableSetupToken(ex: Executor, token: string) {
    const row = token.length > 200 ? undefined : await peopleRepository.findSetupToken(ex, hashSecret(token));
    if (!row || row.used_at !== null || row.expires_at <= this.now()) {
      throw new Problem(404, "This setup link is not valid: it may have expired or been used already. Ask an owner of your organization for a new one.");
    }
    return row;
  }

  async describeSetup(token: string): Promise<SetupView> {
    const db = this.database.db;
    const row = await this.usableSetupToken(db, token);
    const organization = await db.selectFrom("organizations").select("name").where("id", "=", row.organization_id).executeTakeFirstOrThrow();
    const user = row.user_id ? await peopleRepository.findUser(db, row.user_id) : undefined;
    return { organizationName: organization.name, email: user?.email ?? null, role: row.role, expiresAt: row.expires_at };
  }

  async completeSetup(input: { token: string; email?: string; password: string }): Promise<SignedIn> {
    checkPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const { user, session, token } = await this.database.db.transaction().execute(async (trx) => {
      const row = await this.usableSetupToken(trx, input.token);
      let user = row.user_id ? await peopleRepository.findUser(trx, row.user_id) : undefined;
      if (!row.user_id) {
        if (!input.email) throw invalid("Choose the email address you will sign in with.", [{ field: "email", message: "is required" }]);
        const email = checkEmail(input.email);
        user = await peopleRepository.findUserByEmail(trx, email);
        if (!user) {
          user = { id: uuidv7(), email, password_hash: null, created_at: this.now() };
          await peopleRepository.insertUser(trx, user);
        }
      }
      if (!user) throw new Problem(404, "The account of this setup link no longer exists.");
      if (user.password_hash !== null) {
        throw conflict("This account already has a password. Sign in with it; an owner can add the account to the organization.");
      }
      if (!(await peopleRepository.useSetupToken(trx, hashSecret(input.token), this.now()))) {
        throw new Problem(404, "This setup link was used already.");
      }
      await peopleRepository.setPassword(trx, user.id, passwordHash);
      user.password_hash = passwordHash;
      const existing = await peopleRepository.membership(trx, row.organization_id, user.id);
      await peopleRepository.upsertMembership(trx, {
        organization_id: row.organization_id,
        user_id: user.id,
        role: existing === "owner" ? "owner" : row.role,
        created_at: this.now(),
      });
      return { user, ...(await this.startSession(trx, user, row.organization_id)) };
    });
    return { token, view: await this.view(session, user) };
  }

  // ---- accounts and members ---------------------------------------------------------------

  /**
   * Adds a person to an organization (creating the account when needed) and answers a setup
   * link when the account has no password yet. Used by the CLI and the members API.
   */
  async addMember(ex: Executor, organizationId: string, rawEmail: string, role: Role, password?: string): Promise<MemberView> {
    const email = checkEmail(rawEmail);
    if (password !== undefined) checkPassword(password);
    let user = await peopleRepository.findUserByEmail(ex, email);
    if (!user) {
      user = { id: uuidv7(), email, password_hash: null, created_at: this.now() };
      await peopleRepository.insertUser(ex, user);
    }
    const before = await peopleRepository.membership(ex, organizationId, user.id);
    if (before === "owner" && role !== "owner" && (await peopleRepository.countOwners(ex, organizationId)) <= 1) {
      throw conflict(`'${email}' is the organization's only owner. Make someone else an owner first.`);
    }
    if (password !== undefined) {
      const hash = await hashPassword(password);
      await peopleRepository.setPassword(ex, user.id, hash);
      user.password_hash = hash;
    }
    await peopleRepository.upsertMembership(ex, { organization_id: organizationId, user_id: user.id, role, created_at: this.now() });
    const member = (await peopleRepository.members(ex, organizationId)).find((m) => m.userId === user.id)!;
    const view = presentMember(member);
    if (user.password_hash === null) view.setupUrl = await this.createSetupLink(ex, organizationId, user.id, role);
    return view;
  }

  async listMembers(p: Principal): Promise<MemberView[]> {
    policy.manageMembers(p);
    return (await peopleRepository.members(this.database.db, p.organizationId)).map(presentMember);
  }

  async putMember(p: Principal, email: string, role: Role): Promise<MemberView> {
    policy.manageMembers(p);
    return this.database.db.transaction().execute((trx) => this.addMember(trx, p.organizationId, email, role));
  }

  async removeMember(p: Principal, rawEmail: string): Promise<void> {
    policy.manageMembers(p);
    const email = normalizeEmail(rawEmail);
    await this.database.db.transaction().execute(async (trx) => {
      const user = await peopleRepository.findUserByEmail(trx, email);
      const role = user && (await peopleRepository.membership(trx, p.organizationId, user.id));
      if (!user || !role) throw notFound("Member", email);
      if (role === "owner" && (await peopleRepository.countOwners(trx, p.organizationId)) <= 1) {
        throw conflict(`'${email}' is the organization's only owner and cannot be removed.`);
      }
      await peopleRepository.deleteMembership(trx, p.organizationId, user.id);
    });
  }
}
