import { v7 as uuidv7 } from "uuid";
import type { Principal } from "../platform/auth.js";
import type { Executor } from "../platform/database/index.js";
import { policy } from "../policies/index.js";
import { GROUP_SCHEMA } from "./discovery.js";
import type { ApplyTeams } from "../identity/team-membership.js";
import { provision, teamStandingOf } from "./effects.js";
import { ScimError, scimInvalid } from "./errors.js";
import { ScimResourceService, type ScimServiceArgs } from "./resource-service.js";
import { scimRepository, type ScimGroupRow } from "./repository.js";
import { objectBody } from "./resources.js";

/** Most members one group may have. */
const MAX_MEMBERS = 10_000;

export type ScimGroup = Record<string, unknown> & { id: string; displayName: string; members: Array<{ value: string; display?: string }> };

function checkGroup(raw: Record<string, unknown>): { displayName: string; externalId: string | null; members: string[] } {
  const { displayName, externalId, members } = raw;
  if (typeof displayName !== "string" || displayName.trim() === "" || displayName.length > 256) throw scimInvalid("displayName is required: a text of at most 256 characters.");
  if (externalId !== undefined && externalId !== null && (typeof externalId !== "string" || externalId.length > 256)) throw scimInvalid("externalId must be a text of at most 256 characters.");
  if (members !== undefined && !Array.isArray(members)) throw scimInvalid("members must be a list.");
  const list = (members as Array<{ value?: unknown }> | undefined) ?? [];
  if (list.length > MAX_MEMBERS) throw new ScimError(400, `A group may have at most ${MAX_MEMBERS} members.`, "tooMany");
  const ids = list.map((m) => m?.value);
  if (ids.some((v) => typeof v !== "string")) throw scimInvalid("Every member needs a value: the id of a user.");
  return { displayName: displayName.trim(), externalId: (externalId as string | undefined) ?? null, members: [...new Set(ids as string[])] };
}

/**
 * /Groups: the identity provider's groups. A group grants nothing by itself; the organization's
 * mapping (/api/settings/scim-mapping) says which group names make owners. Every change of
 * members or name sets the roles of the users it touches again.
 */
export class ScimGroupService extends ScimResourceService<ScimGroupRow, ScimGroup, ReturnType<typeof checkGroup>> {
  constructor(...args: ScimServiceArgs) {
    super("Group", { all: scimRepository.groups, one: scimRepository.group }, ...args);
  }

  protected async present(ex: Executor, row: ScimGroupRow): Promise<ScimGroup> {
    const members = await scimRepository.members(ex, row.organization_id, row.id);
    return {
      schemas: [GROUP_SCHEMA],
      id: row.id,
      displayName: row.display_name,
      ...(row.external_id !== null ? { externalId: row.external_id } : {}),
      members: members.map((value) => ({ value, $ref: `${this.baseUrl}/api/scim/v2/Users/${value}` })),
      meta: this.meta(row),
    };
  }

  async create(p: Principal, body: unknown): Promise<ScimGroup> {
    policy.manageMembers(p);
    const input = checkGroup(objectBody(body));
    return this.mappedTeams.change(p, async (trx, applyTeams) => {
      const now = this.clock.now().toISOString();
      const row: ScimGroupRow = { organization_id: p.organizationId, id: uuidv7(), display_name: input.displayName, external_id: input.externalId, version: 1, created_at: now, updated_at: now };
      await scimRepository.insertGroup(trx, row);
      await this.setMembers(trx, p.organizationId, row.id, input.members, [], now);
      await this.applyTeams(trx, p.organizationId, input.members, applyTeams);
      return this.present(trx, row);
    });
  }

  protected check(raw: Record<string, unknown>): ReturnType<typeof checkGroup> {
    return checkGroup(raw);
  }

  protected async write(p: Principal, id: string, ifMatch: string | undefined, next: (current: ScimGroup) => ReturnType<typeof checkGroup>): Promise<ScimGroup> {
    return this.mappedTeams.change(p, async (trx, applyTeams) => {
      const row = await this.rowToChange(trx, p, id, ifMatch);
      const input = next(await this.present(trx, row));
      const now = this.clock.now().toISOString();
      const updated: ScimGroupRow = { ...row, display_name: input.displayName, external_id: input.externalId, version: row.version + 1, updated_at: now };
      if (!(await scimRepository.updateGroup(trx, updated, row.version))) throw new ScimError(412, "The group changed while this request was made; read it again.");
      const before = await scimRepository.members(trx, p.organizationId, id);
      await this.setMembers(trx, p.organizationId, id, input.members, before, now);
      await this.applyTeams(trx, p.organizationId, [...new Set([...input.members, ...before])], applyTeams);
      return this.present(trx, updated);
    });
  }

  async delete(p: Principal, id: string, ifMatch?: string): Promise<void> {
    policy.manageMembers(p);
    await this.mappedTeams.change(p, async (trx, applyTeams) => {
      await this.rowToChange(trx, p, id, ifMatch);
      const members = await scimRepository.deleteGroup(trx, p.organizationId, id);
      await this.reassess(trx, p.organizationId, members, this.clock.now().toISOString());
      await this.applyTeams(trx, p.organizationId, members, applyTeams);
    });
  }

  /**
   * The teams the mapping names, for each user among `scimUserIds`: each a team write with its
   * event, in the transaction of the group's change (a team is a document written as any other).
   */
  private async applyTeams(trx: Executor, organizationId: string, scimUserIds: readonly string[], applyTeams: ApplyTeams): Promise<void> {
    for (const id of scimUserIds) {
      const standing = await teamStandingOf(trx, organizationId, id);
      if (standing) await applyTeams(standing.email, standing.groups);
    }
  }

  /** Sets the members (each must be a user of the organization), then the roles of everyone who joined, stayed or left. */
  private async setMembers(ex: Executor, organizationId: string, groupId: string, members: string[], before: string[], now: string): Promise<void> {
    for (const member of members) {
      if (!(await scimRepository.user(ex, organizationId, member))) throw scimInvalid(`Member '${member}' is not a user of this organization.`);
    }
    await scimRepository.setMembers(ex, organizationId, groupId, members);
    await this.reassess(ex, organizationId, [...new Set([...members, ...before])], now);
  }

  /** The role of each active user among `scimUserIds`, from the groups they are in now. */
  private async reassess(ex: Executor, organizationId: string, scimUserIds: string[], now: string): Promise<void> {
    for (const id of scimUserIds) {
      const user = await scimRepository.user(ex, organizationId, id);
      if (user && Number(user.active) !== 0) await provision(ex, organizationId, user.id, user.user_id, now);
    }
  }
}
