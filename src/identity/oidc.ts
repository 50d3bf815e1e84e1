import * as client from "openid-client";
import { v7 as uuidv7 } from "uuid";
import { hashSecret, sameSecret, type Principal } from "../platform/auth.js";
import type { Clock } from "../platform/clock.js";
import type { OidcConfig } from "../platform/config.js";
import type { Database, Executor } from "../platform/database/index.js";
import { outboundFetch, type OutboundPolicy } from "../platform/outbound.js";
import { normalizeEmail } from "../modules/people/addresses.js";
import { peopleRepository, type UserRow } from "../modules/people/repository.js";
import type { SessionService, SessionView } from "../modules/people/sessions.js";
import { mappedStanding, nextRole } from "./mapping.js";
import type { MappedTeams } from "./team-membership.js";
import { identityRepository } from "./repository.js";

/** A sign-in started at the provider must come back within 10 minutes. */
export const SIGN_IN_WINDOW_MS = 10 * 60 * 1000;
/** The longest ID token kept with its session for the provider's sign-out, in characters. */
export const MAX_ID_TOKEN = 16 * 1024;
/** At most this many groups of a person are read from the ID token, each at most 256 characters. */
export const MAX_GROUPS = 1000;

/** Why a sign-in through the provider failed, in words fit for the sign-in page (no token, no secret). */
export class SsoSignInError extends Error {
  constructor(
    readonly reason: "state" | "provider" | "token" | "email",
    message: string,
    readonly detail?: string,
    /** The check that failed, as openid-client or the outbound door names it (no secret): shown to the browser as `ssoCheck`. */
    readonly check?: string,
  ) {
    super(message);
    this.name = "SsoSignInError";
  }
}

/** openid-client's code for the failed check, or the outbound door's reason for a refused request. */
function checkOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && /^[A-Z_]{1,64}$/.test(code)) return code;
  const cause = error.cause as { reason?: unknown } | undefined;
  return cause && typeof cause.reason === "string" ? cause.reason : undefined;
}

/**
 * What outgoing requests to the provider may reach: the outbound policy, with the operator's own
 * OIDC_ISSUER host (and port) allowed as a private destination. Its discovery document cannot
 * widen this: a token or keys endpoint on another private host is refused unless allowed
 * (docs/security.md, "Single sign-on").
 */
export function providerPolicy(outbound: OutboundPolicy, issuer: string): OutboundPolicy {
  const url = new URL(issuer);
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return { allowPrivateNetworks: outbound.allowPrivateNetworks, allowedHosts: [...outbound.allowedHosts, `${host}:${port}`] };
}

/**
 * Sign-in with an OpenID provider (docs/identity.md): authorization code flow with PKCE, `state`
 * and `nonce`, the ID token checked by openid-client (issuer, audience, expiry, and its signature
 * by the provider's published keys). The provider's metadata and keys are fetched again for each
 * sign-in, so a key the provider rotated in is found at once. The account is the one linked to
 * the token's (issuer, subject), else the one of its verified e-mail address, else a new one.
 */
export class OidcSignIn {
  private readonly fetch: ReturnType<typeof outboundFetch>;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    readonly config: OidcConfig,
    outbound: OutboundPolicy,
    private readonly sessions: SessionService,
    private readonly appUrl: string,
    /** Applies the mapping's team entries (docs/identity.md, "Teams from groups"). */
    private readonly mappedTeams: MappedTeams,
  ) {
    this.fetch = outboundFetch(providerPolicy(outbound, config.issuer), { timeoutMs: 10_000, maxResponseBytes: 512 * 1024 });
  }

  get redirectUri(): string {
    return `${this.appUrl}/auth/oidc/callback`;
  }

  private async discover(): Promise<client.Configuration> {
    const execute = [client.enableNonRepudiationChecks];
    if (new URL(this.config.issuer).protocol === "http:") execute.push(client.allowInsecureRequests);
    try {
      return await client.discovery(new URL(this.config.issuer), this.config.clientId, this.config.clientSecret, client.ClientSecretBasic(this.config.clientSecret), {
        [client.customFetch]: this.fetch as unknown as client.CustomFetch,
        execute,
        timeout: 10,
      });
    } catch (error) {
      throw new SsoSignInError("provider", "The sign-in provider could not be reached or described itself incorrectly.", describe(error));
    }
  }

  /**
   * Where to send the browser to sign out at the provider too (OpenID Connect RP-Initiated
   * Logout): its `end_session_endpoint` with the session's ID token as `id_token_hint` and the
   * sign-in page as `post_logout_redirect_uri`; undefined when the provider names no such endpoint.
   * Asked only after the person's Steward session has ended.
   */
  async endSessionUrl(idToken: string | null): Promise<string | undefined> {
    const config = await this.discover();
    if (typeof config.serverMetadata().end_session_endpoint !== "string") return undefined;
    const parameters: Record<string, string> = { post_logout_redirect_uri: this.postLogoutRedirectUri };
    if (idToken !== null) parameters.id_token_hint = idToken;
    return client.buildEndSessionUrl(config, parameters).href;
  }

  /** Where the provider sends the browser back after signing out (register it at the provider). */
  get postLogoutRedirectUri(): string {
    return `${this.appUrl}/sign-in`;
  }

  /** Starts a sign-in: where to send the browser, and the `state` its cookie must carry back. */
  async begin(): Promise<{ url: string; state: string }> {
    const config = await this.discover();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const verifier = client.randomPKCECodeVerifier();
    const now = this.clock.now();
    await identityRepository.insertSignIn(this.database.db, {
      state_hash: hashSecret(state),
      code_verifier: verifier,
      nonce,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SIGN_IN_WINDOW_MS).toISOString(),
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: this.config.scopes,
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });
    return { url: url.href, state };
  }

  /**
   * Finishes a sign-in when the provider sends the browser back. `query` is the callback's query
   * string; `cookieState` the state this browser was given when it began (login CSRF: a code
   * started in someone else's browser is refused). Each state works once.
   */
  async finish(query: string, cookieState: string | undefined): Promise<{ token: string; view: SessionView }> {
    const params = new URLSearchParams(query);
    const state = params.get("state");
    if (!state || state.length > 200 || !cookieState || !sameSecret(state, cookieState)) {
      throw new SsoSignInError("state", "The sign-in did not start in this browser, or it was already used. Start again.");
    }
    const started = await identityRepository.takeSignIn(this.database.db, hashSecret(state), this.clock.now().toISOString());
    if (!started) throw new SsoSignInError("state", "The sign-in did not start in this browser, or it was already used. Start again.");
    const config = await this.discover();
    const current = new URL(this.redirectUri);
    current.search = params.toString();
    let claims: client.IDToken;
    let idToken: string | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: started.code_verifier,
        expectedState: state,
        expectedNonce: started.nonce,
        idTokenExpected: true,
      });
      const found = tokens.claims();
      if (!found) throw new Error("no ID token");
      claims = found;
      idToken = tokens.id_token;
    } catch (error) {
      throw new SsoSignInError("token", "The sign-in provider's answer was refused.", describe(error), checkOf(error));
    }
    if (typeof claims.email !== "string" || claims.email_verified !== true) {
      throw new SsoSignInError("email", "The sign-in provider did not confirm a verified e-mail address for this account.");
    }
    const email = normalizeEmail(claims.email);
    if (email.length > 320 || !email.includes("@")) throw new SsoSignInError("email", "The sign-in provider sent an e-mail address Steward cannot use.");
    const groups = groupsOf(claims, this.config.groupsClaim);
    const user = await this.database.db.transaction().execute((trx) => this.account(trx, claims.iss, claims.sub, email));
    await this.applyGroups(user, groups);
    const organizationId = (await peopleRepository.memberships(this.database.db, user.id))[0]?.organizationId ?? null;
    return this.database.db.transaction().execute(async (trx) => {
      // Kept for the provider's sign-out (id_token_hint); one too large to keep is not sent there.
      const hint = idToken !== undefined && idToken.length <= MAX_ID_TOKEN ? idToken : null;
      const { token, session } = await this.sessions.start(trx, user, organizationId, "oidc", hint);
      return { token, view: await this.sessions.viewIn(trx, session, user) };
    });
  }

  private async account(ex: Executor, issuer: string, subject: string, email: string): Promise<UserRow> {
    const now = this.clock.now().toISOString();
    const linked = await identityRepository.identityUser(ex, issuer, subject);
    let user = linked ? await peopleRepository.findUser(ex, linked) : undefined;
    if (!user) {
      user = await peopleRepository.findUserByEmail(ex, email);
      if (!user) {
        // An account made by single sign-on has no password: it signs in only through the provider.
        await peopleRepository.insertUserIfAbsent(ex, { id: uuidv7(), email, password_hash: null, created_at: now });
        user = (await peopleRepository.findUserByEmail(ex, email))!;
      }
    }
    await identityRepository.linkIdentity(ex, issuer, subject, user.id, now);
    return user;
  }

  /**
   * Applies every organization's group mapping: the person's role there, then the teams it names
   * (the person is listed where their groups put them, as a member of the organization). Each
   * organization is one change, so its membership and its team entries commit together, before
   * the session starts and the person's first view shows them.
   */
  private async applyGroups(user: UserRow, groups: string[]): Promise<void> {
    for (const { organizationId, mapping } of await identityRepository.mappings(this.database.db)) {
      const standing = mappedStanding(mapping, groups);
      const teams = mapping.scimGroupMappings.some((e) => e.type === "teamMemberRole");
      if (!standing.matched && !teams) continue;
      const actor: Principal = { organizationId, scope: "organization", teamIds: [] };
      await this.mappedTeams.change(actor, async (trx, applyTeams) => {
        const now = this.clock.now().toISOString();
        let current = await peopleRepository.membership(trx, organizationId, user.id);
        const lastOwner = current === "owner" && (await peopleRepository.countOwners(trx, organizationId)) <= 1;
        const role = standing.matched ? nextRole(standing, current, lastOwner) : undefined;
        if (role !== undefined && role !== current) {
          if (current === undefined) await peopleRepository.upsertMembership(trx, { organization_id: organizationId, user_id: user.id, role, created_at: now });
          else await peopleRepository.setRole(trx, organizationId, user.id, role);
          current = role;
        }
        if (teams) await applyTeams(user.email, current !== undefined ? groups : null);
      });
    }
  }
}

function groupsOf(claims: client.IDToken, claim: string | undefined): string[] {
  if (!claim) return [];
  const value = claims[claim];
  const list = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  return list.filter((g): g is string => typeof g === "string" && g.length > 0 && g.length <= 256).slice(0, MAX_GROUPS);
}

/** A failure's kind and message for the log: openid-client's codes name the check that failed. */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${code ? `${code} ` : ""}${error.message}${cause}`.slice(0, 500);
  }
  return String(error).slice(0, 500);
}
