import type { Clock } from "../../platform/clock.js";
import type { Config } from "../../platform/config.js";
import type { Database, Executor } from "../../platform/database/index.js";
import { InvitationService } from "./invitations.js";
import { MemberService, type MemberView } from "./members.js";
import { PasswordHasher } from "./passwords.js";
import type { Role } from "./repository.js";
import { SessionService } from "./sessions.js";
import { SignInThrottle } from "./throttle.js";

/**
 * People of the web app, by concern: sessions (sign-in and the cookie's principal), the sign-in
 * throttle, invitations (how anyone joins an organization) and members (an organization's view
 * of its people). Accounts are global; memberships are per organization.
 */
export class PeopleService {
  readonly throttle: SignInThrottle;
  readonly sessions: SessionService;
  readonly invitations: InvitationService;
  readonly members: MemberService;

  constructor(database: Database, clock: Clock, config: Config) {
    const hasher = new PasswordHasher(config.passwordLog2Cost);
    this.throttle = new SignInThrottle(database, clock);
    this.sessions = new SessionService(database, clock, hasher, this.throttle);
    this.invitations = new InvitationService(database, clock, config, hasher, this.sessions);
    this.members = new MemberService(database, clock, hasher, this.invitations);
  }

  /** The operator's way in (`steward user create`, seeding): see MemberService.addByOperator. */
  addMember(ex: Executor, organizationId: string, email: string, role: Role, password?: string): Promise<MemberView> {
    return this.members.addByOperator(ex, organizationId, email, role, password);
  }
}
