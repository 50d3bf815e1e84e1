import type { Clock } from "../platform/clock.js";
import type { Config } from "../platform/config.js";
import type { Database } from "../platform/database/index.js";
import type { PeopleService } from "../modules/people/service.js";
import { OidcSignIn } from "./oidc.js";
import { IdentitySettingsService } from "./settings.js";
import { TeamRolesService } from "./team-roles.js";
import type { AccessService } from "../modules/access/service.js";
import { ScimGroupService } from "../scim/groups.js";
import { ScimUserService } from "../scim/users.js";
import type { DocumentService } from "../modules/catalog/document-service.js";
import type { Team } from "../modules/teams/shapes.js";
import { MappedTeams } from "./team-membership.js";
import type { EventLog } from "../events/log.js";

/** Identity, wired once: single sign-on when OIDC_ISSUER is set, and each organization's settings. */
export class IdentityServices {
  readonly oidc: OidcSignIn | undefined;
  readonly settings: IdentitySettingsService;
  readonly scimUsers: ScimUserService;
  readonly scimGroups: ScimGroupService;
  readonly teamRoles: TeamRolesService;
  /** The group mapping's team entries; its refusals go to the server's log once it runs. */
  readonly mappedTeams: MappedTeams;

  constructor(database: Database, clock: Clock, config: Config, people: PeopleService, access: AccessService, teams: DocumentService<Team>, events: EventLog) {
    const mappedTeams = (this.mappedTeams = new MappedTeams(database, events, teams));
    this.scimUsers = new ScimUserService(access, database, clock, config.appUrl, mappedTeams);
    this.scimGroups = new ScimGroupService(database, clock, config.appUrl, mappedTeams);
    this.teamRoles = new TeamRolesService(database, clock);
    this.oidc = config.oidc ? new OidcSignIn(database, clock, config.oidc, config.outbound, people.sessions, config.appUrl, mappedTeams) : undefined;
    this.settings = new IdentitySettingsService(database, clock, config.oidc?.issuer);
  }
}
