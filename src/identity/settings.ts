import type { Principal } from "../platform/auth.js";
import type { Clock } from "../platform/clock.js";
import type { Database } from "../platform/database/index.js";
import { conflict, invalid } from "../platform/errors.js";
import { policy } from "../policies/index.js";
import { DEFAULT_TEAM_ROLES } from "../policies/team-roles.js";
import { mappingViolations, unknownRoleViolations, type GroupMapping } from "./mapping.js";
import { identityRepository } from "./repository.js";
import { mayTurnOffPasswords } from "./rules.js";

/** An organization's identity settings: the group mapping and whether passwords still work. */
export class IdentitySettingsService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    /** The OIDC_ISSUER, when single sign-on is configured. */
    private readonly issuer: string | undefined,
  ) {}

  async mapping(p: Principal): Promise<GroupMapping> {
    policy.manageMembers(p);
    return (await identityRepository.settings(this.database.db, p.organizationId)).mapping;
  }

  async putMapping(p: Principal, mapping: GroupMapping): Promise<GroupMapping> {
    policy.manageMembers(p);
    const violations = mappingViolations(mapping);
    if (violations.length > 0) throw invalid("The mapping is not valid.", violations);
    await this.database.db.transaction().execute(async (trx) => {
      const now = this.clock.now().toISOString();
      await identityRepository.lockSettings(trx, p.organizationId, this.database.dialect, now);
      // A role of the built-in ones or of the organization's catalog, whether in force or kept for later.
      const { roles } = await identityRepository.teamRoles(trx, p.organizationId);
      const unknown = unknownRoleViolations(mapping, [...DEFAULT_TEAM_ROLES, ...roles].map((r) => r.name));
      if (unknown.length > 0) throw invalid("The mapping names team roles the organization does not have.", unknown);
      await identityRepository.saveSettings(trx, p.organizationId, { mapping }, now);
    });
    return mapping;
  }

  async signIn(p: Principal): Promise<{ passwordSignIn: boolean; ssoConfigured: boolean; ownersSignedInWithSso: number }> {
    policy.manageMembers(p);
    const db = this.database.db;
    const { passwordSignIn } = await identityRepository.settings(db, p.organizationId);
    const owners = this.issuer ? await identityRepository.ownersSignedInWithSso(db, p.organizationId) : 0;
    return { passwordSignIn, ssoConfigured: this.issuer !== undefined, ownersSignedInWithSso: owners };
  }

  async putSignIn(p: Principal, passwordSignIn: boolean) {
    policy.manageMembers(p);
    await this.database.db.transaction().execute(async (trx) => {
      if (!passwordSignIn) {
        const owners = this.issuer ? await identityRepository.ownersSignedInWithSso(trx, p.organizationId) : 0;
        const verdict = mayTurnOffPasswords({ ssoConfigured: this.issuer !== undefined, ownersSignedInWithSso: owners });
        if (!verdict.allowed) {
          throw conflict(
            verdict.reason === "no-sso"
              ? "Password sign-in cannot be turned off: this server has no single sign-on provider (OIDC_ISSUER)."
              : "Password sign-in cannot be turned off until at least one owner of the organization has signed in with single sign-on.",
          );
        }
      }
      await identityRepository.saveSettings(trx, p.organizationId, { passwordSignIn }, this.clock.now().toISOString());
    });
    return this.signIn(p);
  }
}
