import { randomBytes } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { hashSecret, sameSecret, type Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database, Executor } from "../../platform/database/index.js";
import { forbidden, notFound, unauthenticated, unauthorized } from "../../platform/errors.js";
import { personScope } from "../../policies/index.js";
import { normalizeEmail } from "./addresses.js";
import { personPrincipal } from "./principal.js";
import type { PasswordHasher } from "./passwords.js";
import { peopleRepository, type Role, type UserRow } from "./repository.js";
import { sessionRepository, type SessionRow } from "./session-repository.js";
import type { SignInThrottle } from "./throttle.js";

/** A session is good for 12 hours after its last use, and 7 days at most. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
const SESSION_TOUCH_MS = 60_000;
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

export interface SignedIn {
  token: string;
  view: SessionView;
}

export interface SignedInAs {
  session: SessionRow;
  user: UserRow;
}

/** Throws 403 unless the request echoes the session's CSRF token. */
function checkCsrf(session: SessionRow, header: string | string[] | undefined, what: string): void {
  if (typeof header !== "string" || !sameSecret(header, session.csrf_token)) {
    throw forbidden(`${what} must carry the session's CSRF token in the x-csrf-token header.`);
  }
}

/**
 * Sessions of the web app: sign-in, the cookie's principal, switching organization. A signed-in
 * person acts through a Principal like an API key does, so every rule in src/policies applies
 * to both alike.
 */
/** How an ended session began (`oidc`: with the ID token it began with, when kept). */
export interface EndedSession {
  signedInWith: string;
  idToken: string | null;
}

export class SessionService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly hasher: PasswordHasher,
    private readonly throttle: SignInThrottle,
  ) {}

  /** What a person may do in an organization (principal.ts, shared with keys bound to a person). */
  async principalFor(ex: Executor, organizationId: string, user: Pick<UserRow, "id" | "email">, role: Role): Promise<Principal> {
    return personPrincipal(ex, organizationId, user, role);
  }

  private async load(token: string | undefined): Promise<SignedInAs | undefined> {
    if (!token || token.length > 200) return undefined;
    const db = this.database.db;
    const session = await sessionRepository.find(db, hashSecret(token));
    if (!session) return undefined;
    const now = this.clock.now();
    if (session.expires_at <= now.toISOString()) {
      await sessionRepository.delete(db, session.id);
      return undefined;
    }
    const user = await peopleRepository.findUser(db, session.user_id);
    if (!user) return undefined;
    if (now.getTime() - Date.parse(session.last_seen_at) >= SESSION_TOUCH_MS) {
      const expiresAt = new Date(Math.min(now.getTime() + SESSION_IDLE_MS, Date.parse(session.created_at) + SESSION_MAX_MS)).toISOString();
      await sessionRepository.touch(db, session.id, now.toISOString(), expiresAt);
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
    const loaded = await this.load(token);
    if (!loaded) throw unauthorized();
    const { session, user } = loaded;
    if (MUTATING.has(method.toUpperCase())) checkCsrf(session, csrfHeader, "A change made with a session cookie");
    if (session.organization_id === null) throw unauthorized();
    // Read from the database on every request: a membership removed (by an owner, by SCIM) or
    // password sign-in turned off refuses the cookie at once, in every process.
    const standing = await peopleRepository.sessionStanding(this.database.db, session.organization_id, user.id);
    if (!standing) throw unauthorized();
    if (session.signed_in_with === "password" && !standing.passwordSignIn) throw unauthorized();
    return this.principalFor(this.database.db, session.organization_id, user, standing.role);
  }

  /** The signed-in person of a call outside /api (sign-out, switching organization, accepting an invitation), CSRF token checked. */
  async require(token: string | undefined, csrfHeader: string | string[] | undefined): Promise<SignedInAs> {
    const loaded = await this.load(token);
    if (!loaded) throw unauthenticated("You are not signed in.");
    checkCsrf(loaded.session, csrfHeader, "This call");
    return loaded;
  }

  /** The signed-in person, if the cookie names a live session; no CSRF check (reads only). */
  async current(token: string | undefined): Promise<SignedInAs | undefined> {
    return this.load(token);
  }

  async view(session: SessionRow, user: UserRow): Promise<SessionView> {
    return this.viewIn(this.database.db, session, user);
  }

  /** The session's view read through `db` (a transaction that has just started the session). */
  async viewIn(db: Executor, session: SessionRow, user: UserRow): Promise<SessionView> {
    const organizations = (await peopleRepository.memberships(db, user.id)).map((m) => ({ id: m.organizationId, name: m.organizationName, role: m.role }));
    let current = organizations.find((o) => o.id === session.organization_id);
    if (!current && organizations.length > 0) {
      // The organization the session was in is gone, or the person was removed from it.
      current = organizations[0];
      await sessionRepository.setOrganization(db, session.id, current.id);
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
    const loaded = await this.load(token);
    return loaded && this.view(loaded.session, loaded.user);
  }

  /** `idToken`: the ID token a single sign-on began with, kept for the provider's sign-out (docs/identity.md). */
  async start(ex: Executor, user: UserRow, organizationId: string | null, signedInWith: "password" | "oidc" = "password", idToken: string | null = null): Promise<{ token: string; session: SessionRow }> {
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
      signed_in_with: signedInWith,
      id_token: idToken,
    };
    await sessionRepository.deleteExpired(ex, now.toISOString());
    await sessionRepository.insert(ex, session);
    return { token, session };
  }

  /** `client` is the address the request came from, counted by the throttle. */
  async signIn(input: { email: string; password: string; organizationId?: string }, client: string): Promise<SignedIn> {
    const email = normalizeEmail(input.email);
    await this.throttle.check(email, client);
    const db = this.database.db;
    const user = await peopleRepository.findUserByEmail(db, email);
    const ok = await this.hasher.verify(input.password, user?.password_hash ?? null);
    if (!user || !ok) {
      await this.throttle.failed(email, client);
      throw unauthenticated("The email address or the password is not correct.");
    }
    await this.throttle.succeeded(email, client);
    if (user.password_hash !== null && this.hasher.outdated(user.password_hash)) {
      // Old hashes verify with their own cost; the password is at hand now to store it at today's.
      await peopleRepository.setPassword(db, user.id, await this.hasher.hash(input.password));
    }
    const all = await peopleRepository.memberships(db, user.id);
    // Organizations that sign in only through their OpenID provider do not take a password.
    const off = await peopleRepository.passwordOff(db, all.map((m) => m.organizationId));
    const memberships = all.filter((m) => !off.has(m.organizationId));
    if (all.length > 0 && memberships.length === 0) throw forbidden("Your organization signs in with single sign-on only: use the \"Sign in with\" button.");
    const organizationId = memberships.find((m) => m.organizationId === input.organizationId)?.organizationId ?? memberships[0]?.organizationId ?? null;
    const { token, session } = await this.start(db, user, organizationId);
    return { token, view: await this.view(session, user) };
  }

  /** Ends the session; answers how it began, for the provider's own sign-out of a single sign-on session. */
  async signOut(token: string | undefined, csrf: string | string[] | undefined): Promise<EndedSession> {
    const { session } = await this.require(token, csrf);
    await sessionRepository.delete(this.database.db, session.id);
    return { signedInWith: session.signed_in_with, idToken: session.id_token ?? null };
  }

  async switchOrganization(token: string | undefined, csrf: string | string[] | undefined, organizationId: string): Promise<SessionView> {
    const { session, user } = await this.require(token, csrf);
    const standing = await peopleRepository.sessionStanding(this.database.db, organizationId, user.id);
    if (!standing) throw notFound("Organization", organizationId);
    if (session.signed_in_with === "password" && !standing.passwordSignIn) throw forbidden("This organization signs in with single sign-on only: sign in with its OpenID provider to work in it.");
    await sessionRepository.setOrganization(this.database.db, session.id, organizationId);
    session.organization_id = organizationId;
    return this.view(session, user);
  }
}
