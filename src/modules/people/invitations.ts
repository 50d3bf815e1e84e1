import { randomBytes } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { hashSecret } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Config } from "../../platform/config.js";
import type { Database, Executor } from "../../platform/database/index.js";
import { conflict, forbidden, invalid, missing, unauthenticated } from "../../platform/errors.js";
import { checkEmail, checkPassword } from "./addresses.js";
import { invitationRepository, type InvitationRow } from "./invitation-repository.js";
import type { PasswordHasher } from "./passwords.js";
import { peopleRepository, type Role, type UserRow } from "./repository.js";
import { sessionRepository } from "./session-repository.js";
import type { SessionService, SignedIn } from "./sessions.js";

/** Invitations and the first-start setup link work once, within 24 hours. */
export const INVITATION_MS = 24 * 60 * 60 * 1000;

export interface InvitationView {
  organizationName: string;
  /** The address the invitation is for; null on the first-start setup link, where the person chooses it. */
  email: string | null;
  role: Role;
  expiresAt: string;
  /** Whether an account with the invitation's address exists: then accepting needs its session. */
  accountExists: boolean;
  /** The address of the account the request is signed in as, if any. */
  signedInAs: string | null;
}

export interface AcceptInput {
  token: string;
  email?: string;
  password?: string;
}

/** The answer to accepting: a new session (a new account was made), or the caller's own session now in the organization. */
export type Accepted = SignedIn | { token: undefined; view: SignedIn["view"] };

const UNUSABLE = "This link is not valid: it may have expired or been used already. Ask an owner of the organization for a new invitation.";

/**
 * How people join an organization (docs/product.md §2). An organization never sets a password: it
 * invites an address, and the invitation grants only that organization's membership, to the
 * account of that address. Accepting creates the account when none exists (the person chooses
 * the password); for an existing account it needs that account's own session. The first-start
 * setup link is the one invitation without an address: it makes the first owner of an
 * organization that has nobody yet, and only as a new account.
 */
export class InvitationService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionService,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async insert(ex: Executor, organizationId: string, email: string | null, role: Role, page: string): Promise<{ url: string; expiresAt: string }> {
    const token = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + INVITATION_MS).toISOString();
    await invitationRepository.insert(ex, {
      token_hash: hashSecret(token),
      organization_id: organizationId,
      email,
      role,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      used_at: null,
    });
    return { url: `${this.config.appUrl}/${page}?token=${token}`, expiresAt };
  }

  /** Invites an address; earlier unused invitations of the address to the organization stop working. */
  async invite(ex: Executor, organizationId: string, email: string, role: Role): Promise<{ url: string; expiresAt: string }> {
    await invitationRepository.withdraw(ex, organizationId, email);
    return this.insert(ex, organizationId, email, role, "invitation");
  }

  /** The first-start link: whoever opens it chooses the first owner's address and password. */
  async createSetupLink(ex: Executor, organizationId: string): Promise<string> {
    return (await this.insert(ex, organizationId, null, "owner", "setup")).url;
  }

  private async usable(ex: Executor, token: string): Promise<InvitationRow> {
    const row = token.length > 200 ? undefined : await invitationRepository.find(ex, hashSecret(token));
    if (!row || row.used_at !== null || row.expires_at <= this.now()) throw missing(UNUSABLE);
    return row;
  }

  async describe(token: string, sessionToken: string | undefined): Promise<InvitationView> {
    const db = this.database.db;
    const row = await this.usable(db, token);
    const organization = await peopleRepository.organizationName(db, row.organization_id);
    const account = row.email === null ? undefined : await peopleRepository.findUserByEmail(db, row.email);
    const signedIn = await this.sessions.current(sessionToken);
    return {
      organizationName: organization ?? row.organization_id,
      email: row.email,
      role: row.role,
      expiresAt: row.expires_at,
      accountExists: account !== undefined,
      signedInAs: signedIn?.user.email ?? null,
    };
  }

  async accept(input: AcceptInput, sessionToken: string | undefined, csrf: string | string[] | undefined): Promise<Accepted> {
    const row = await this.usable(this.database.db, input.token);
    if (row.email !== null && (await peopleRepository.findUserByEmail(this.database.db, row.email))) {
      return this.acceptAsSignedIn(row, sessionToken, csrf);
    }
    return this.acceptAsNewAccount(row, input);
  }

  /** The address has an account: only its own session may take the membership. */
  private async acceptAsSignedIn(row: InvitationRow, sessionToken: string | undefined, csrf: string | string[] | undefined): Promise<Accepted> {
    if (!sessionToken) throw unauthenticated(`An account with the address ${row.email} exists. Sign in with it, then open the invitation again.`);
    const { session, user } = await this.sessions.require(sessionToken, csrf);
    if (user.email !== row.email) throw forbidden(`This invitation is for ${row.email}, but you are signed in as ${user.email}. Sign out and sign in as ${row.email}.`);
    await this.database.db.transaction().execute(async (trx) => {
      await this.use(trx, row);
      await this.join(trx, row, user);
      await sessionRepository.setOrganization(trx, session.id, row.organization_id);
    });
    session.organization_id = row.organization_id;
    return { token: undefined, view: await this.sessions.view(session, user) };
  }

  private async acceptAsNewAccount(row: InvitationRow, input: AcceptInput): Promise<Accepted> {
    const setup = row.email === null;
    if (setup && !input.email) throw invalid("Choose the email address you will sign in with.", [{ field: "email", message: "is required" }]);
    const email = setup ? checkEmail(input.email!) : row.email!;
    if (input.password === undefined) throw invalid("Choose a password for your new account.", [{ field: "password", message: "is required" }]);
    checkPassword(input.password);
    const passwordHash = await this.hasher.hash(input.password);
    const { user, session, token } = await this.database.db.transaction().execute(async (trx) => {
      if (setup && (await peopleRepository.countMembers(trx, row.organization_id)) > 0) {
        throw conflict("This organization has people already; the first-start link only makes its first owner. Ask an owner for an invitation.");
      }
      const user: UserRow = { id: uuidv7(), email, password_hash: passwordHash, created_at: this.now() };
      if (!(await peopleRepository.insertUserIfAbsent(trx, user))) {
        throw conflict(
          setup
            ? "An account with this address exists already; the first-start link only makes a new one. Sign in with it instead."
            : `An account with the address ${email} exists. Sign in with it, then open the invitation again.`,
        );
      }
      await this.use(trx, row);
      await this.join(trx, row, user);
      return { user, ...(await this.sessions.start(trx, user, row.organization_id)) };
    });
    return { token, view: await this.sessions.view(session, user) };
  }

  private async use(ex: Executor, row: InvitationRow): Promise<void> {
    if (!(await invitationRepository.use(ex, row.token_hash, this.now()))) throw missing(UNUSABLE);
  }

  /** Grants the invitation's membership; a person who is an owner already stays one. */
  private async join(ex: Executor, row: InvitationRow, user: UserRow): Promise<void> {
    const existing = await peopleRepository.membership(ex, row.organization_id, user.id);
    if (existing === "owner" || existing === row.role) return;
    await peopleRepository.upsertMembership(ex, { organization_id: row.organization_id, user_id: user.id, role: row.role, created_at: this.now() });
  }
}
