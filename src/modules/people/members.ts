import { v7 as uuidv7 } from "uuid";
import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database, Executor } from "../../platform/database/index.js";
import { conflict, notFound, preconditionFailed } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import { checkEmail, checkPassword, normalizeEmail } from "./addresses.js";
import { invitationRepository } from "./invitation-repository.js";
import type { InvitationService } from "./invitations.js";
import { memberOutcome, type Precondition, type Standing } from "./member-rules.js";
import type { PasswordHasher } from "./passwords.js";
import { peopleRepository, type Role } from "./repository.js";
import { sessionRepository } from "./session-repository.js";

export interface MemberView {
  email: string;
  role: Role;
  /** `invited` until the person accepts the invitation. */
  status: "active" | "invited";
  /** The account's id; null while invited. */
  userId: string | null;
  createdAt: string;
  /** When the pending invitation stops working; null for active members. */
  expiresAt: string | null;
  /** The one-time invitation link; only in the response that made it. */
  invitationUrl?: string;
}

/** The people of an organization, for its owners and organization keys, and for the operator's CLI. */
export class MemberService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly hasher: PasswordHasher,
    private readonly invitations: InvitationService,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async standing(ex: Executor, organizationId: string, email: string): Promise<{ standing: Standing; userId?: string }> {
    const member = await peopleRepository.membershipByEmail(ex, organizationId, email);
    if (member) return { standing: member.role, userId: member.userId };
    const invited = await invitationRepository.pending(ex, organizationId, this.now(), email);
    return { standing: invited.length > 0 ? "invited" : "none" };
  }

  private async view(ex: Executor, organizationId: string, email: string): Promise<MemberView> {
    return (await this.all(ex, organizationId)).find((m) => m.email === email)!;
  }

  private async all(ex: Executor, organizationId: string): Promise<MemberView[]> {
    const active: MemberView[] = (await peopleRepository.members(ex, organizationId)).map((m) => ({
      email: m.email,
      role: m.role,
      status: "active",
      userId: m.userId,
      createdAt: m.createdAt,
      expiresAt: null,
    }));
    const emails = new Set(active.map((m) => m.email));
    const invited: MemberView[] = (await invitationRepository.pending(ex, organizationId, this.now()))
      .filter((i) => !emails.has(i.email!))
      .map((i) => ({ email: i.email!, role: i.role, status: "invited", userId: null, createdAt: i.created_at, expiresAt: i.expires_at }));
    return [...active, ...invited].sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
  }

  /**
   * A page of the members and pending invitations, by address. Both are merged (an address invited
   * again once a member shows once) before the page is cut, so the page is taken from the whole.
   */
  async list(p: Principal, page: { offset: number; limit: number }): Promise<MemberView[]> {
    policy.readMembers(p);
    return (await this.all(this.database.db, p.organizationId)).slice(page.offset, page.offset + page.limit);
  }

  /** Adds (invites) a person or changes a member's role, by the table in member-rules.ts. */
  async put(p: Principal, rawEmail: string, role: Role, precondition: Precondition): Promise<MemberView> {
    policy.manageMembers(p);
    const email = checkEmail(rawEmail);
    return this.database.db.transaction().execute((trx) => this.apply(trx, p.organizationId, email, role, precondition));
  }

  private async apply(ex: Executor, organizationId: string, email: string, role: Role, precondition: Precondition): Promise<MemberView> {
    const { standing, userId } = await this.standing(ex, organizationId, email);
    switch (memberOutcome(standing, role, precondition)) {
      case "missing":
        throw preconditionFailed(`'${email}' is neither a member of the organization nor invited to it (If-Match: * asks to change an existing member).`);
      case "exists":
        throw preconditionFailed(`'${email}' is already ${standing === "invited" ? "invited to" : `${standing === "owner" ? "an owner" : "a member"} of`} the organization.`);
      case "would-demote":
        throw conflict(`'${email}' is an owner of the organization; adding them again does not change that. To make them a member, send the request with If-Match: *.`);
      case "invite": {
        const { url } = await this.invitations.invite(ex, organizationId, email, role);
        return { ...(await this.view(ex, organizationId, email)), invitationUrl: url };
      }
      case "set-role":
        if (standing === "owner" && (await peopleRepository.countOwners(ex, organizationId)) <= 1) {
          throw conflict(`'${email}' is the organization's only owner. Make someone else an owner first.`);
        }
        await peopleRepository.setRole(ex, organizationId, userId!, role);
        return this.view(ex, organizationId, email);
      case "keep":
        return this.view(ex, organizationId, email);
    }
  }

  /** Removes a member, or withdraws a pending invitation. */
  async remove(p: Principal, rawEmail: string): Promise<void> {
    policy.manageMembers(p);
    const email = normalizeEmail(rawEmail);
    await this.database.db.transaction().execute(async (trx) => {
      const { standing, userId } = await this.standing(trx, p.organizationId, email);
      if (standing === "none") throw notFound("Member", email);
      if (standing === "owner" && (await peopleRepository.countOwners(trx, p.organizationId)) <= 1) {
        throw conflict(`'${email}' is the organization's only owner and cannot be removed.`);
      }
      await invitationRepository.withdraw(trx, p.organizationId, email);
      if (userId) await peopleRepository.deleteMembership(trx, p.organizationId, userId);
    });
  }

  /**
   * `steward user create`: the operator owns the machine, so with a password it creates the
   * account (or sets the password of an existing one, ending its sessions) and the membership at
   * once. Without one it invites, like the API. It never lowers an owner.
   */
  async addByOperator(ex: Executor, organizationId: string, rawEmail: string, role: Role, password?: string): Promise<MemberView> {
    const email = checkEmail(rawEmail);
    if (password === undefined) return this.apply(ex, organizationId, email, role, "none");
    checkPassword(password);
    const { standing } = await this.standing(ex, organizationId, email);
    if (memberOutcome(standing, role, "none") === "would-demote") return this.apply(ex, organizationId, email, role, "none");
    const passwordHash = await this.hasher.hash(password);
    let user = await peopleRepository.findUserByEmail(ex, email);
    if (user) {
      await peopleRepository.setPassword(ex, user.id, passwordHash);
      await sessionRepository.deleteOthersOf(ex, user.id, null);
    } else {
      user = { id: uuidv7(), email, password_hash: passwordHash, created_at: this.now() };
      await peopleRepository.insertUserIfAbsent(ex, user);
    }
    const current = await peopleRepository.membership(ex, organizationId, user.id);
    if (current !== "owner") await peopleRepository.upsertMembership(ex, { organization_id: organizationId, user_id: user.id, role, created_at: this.now() });
    await invitationRepository.withdraw(ex, organizationId, email);
    return this.view(ex, organizationId, email);
  }
}
