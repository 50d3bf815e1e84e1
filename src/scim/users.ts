import { v7 as uuidv7 } from "uuid";
import type { Principal } from "../platform/auth.js";
import type { Executor } from "../platform/database/index.js";
import { policy } from "../policies/index.js";
import { normalizeEmail } from "../modules/people/addresses.js";
import { peopleRepository } from "../modules/people/repository.js";
import type { AccessService } from "../modules/access/service.js";
import { USER_SCHEMA } from "./discovery.js";
import { accountFor, deprovision, provision, teamStandingOf } from "./effects.js";
import { ScimError, scimInvalid } from "./errors.js";
import { ScimResourceService, type ScimServiceArgs } from "./resource-service.js";
import { scimRepository, type ScimUserRow } from "./repository.js";
import { normalizeActive, objectBody } from "./resources.js";

/** The largest user document kept, in bytes of JSON. */
const MAX_USER_BYTES = 64 * 1024;
/** Attributes the server owns: never taken from a request. */
const SERVER_OWNED = new Set(["id", "meta", "schemas", "groups"]);

export type ScimUser = Record<string, unknown> & { id: string; userName: string; active: boolean };

/** What a request may set of a user: checked, with its account address. */
function checkUser(raw: Record<string, unknown>): { doc: Record<string, unknown>; userName: string; email: string; active: boolean } {
  const doc: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) if (!SERVER_OWNED.has(key)) doc[key] = value;
  const { userName } = doc;
  if (typeof userName !== "string" || userName.trim() === "" || userName.length > 320) throw scimInvalid("userName is required: a text of at most 320 characters.");
  const active = normalizeActive(doc.active ?? true);
  if (typeof active !== "boolean") throw scimInvalid("active must be true or false.");
  doc.active = active;
  let email: unknown = userName;
  if (doc.emails !== undefined) {
    if (!Array.isArray(doc.emails) || doc.emails.length > 100) throw scimInvalid("emails must be a list of at most 100 addresses.");
    const emails = doc.emails as Array<{ value?: unknown; primary?: unknown }>;
    email = (emails.find((e) => e?.primary === true) ?? emails[0])?.value ?? userName;
  }
  if (typeof email !== "string" || !/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) {
    throw scimInvalid("The user needs an e-mail address: a primary email, or a userName that is one.");
  }
  if (Buffer.byteLength(JSON.stringify(doc)) > MAX_USER_BYTES) throw new ScimError(413, `A user document may hold at most ${MAX_USER_BYTES} bytes.`);
  return { doc, userName: userName.trim(), email: normalizeEmail(email), active };
}

/** /Users: the people an organization's identity provider provisions (RFC 7644). */
export class ScimUserService extends ScimResourceService<ScimUserRow, ScimUser, ReturnType<typeof checkUser>> {
  constructor(
    /** Ends the accesses of a person deprovisioned. */
    private readonly access: AccessService,
    ...args: ScimServiceArgs
  ) {
    super("User", { all: scimRepository.users, one: scimRepository.user }, ...args);
  }

  protected async present(ex: Executor, row: ScimUserRow): Promise<ScimUser> {
    const groups = await scimRepository.groupsOf(ex, row.organization_id, row.id);
    const doc = JSON.parse(row.doc) as Record<string, unknown>;
    return {
      schemas: [USER_SCHEMA],
      id: row.id,
      ...doc,
      userName: doc.userName as string,
      active: Number(row.active) !== 0,
      groups: groups.map((g) => ({ value: g.id, display: g.displayName, $ref: `${this.baseUrl}/api/scim/v2/Groups/${g.id}` })),
      meta: this.meta(row),
    };
  }

  async create(p: Principal, body: unknown): Promise<ScimUser> {
    policy.manageMembers(p);
    const input = checkUser(objectBody(body));
    const user = await this.mappedTeams.change(p, async (trx) => {
      if (await scimRepository.userByName(trx, p.organizationId, input.userName.toLowerCase())) {
        throw new ScimError(409, `A user with userName '${input.userName}' exists already.`, "uniqueness");
      }
      const now = this.clock.now().toISOString();
      const account = await accountFor(trx, input.email, now);
      const row: ScimUserRow = {
        organization_id: p.organizationId,
        id: uuidv7(),
        user_id: account.id,
        user_name_key: input.userName.toLowerCase(),
        active: input.active ? 1 : 0,
        doc: JSON.stringify(input.doc),
        version: 1,
        created_at: now,
        updated_at: now,
      };
      if (await trx.selectFrom("scim_users").select("id").where("organization_id", "=", p.organizationId).where("user_id", "=", account.id).executeTakeFirst()) {
        throw new ScimError(409, `A user with the address '${input.email}' exists already.`, "uniqueness");
      }
      await scimRepository.insertUser(trx, row);
      if (input.active) await provision(trx, p.organizationId, row.id, account.id, now);
      return this.present(trx, row);
    });
    return user;
  }

  protected check(raw: Record<string, unknown>): ReturnType<typeof checkUser> {
    return checkUser(raw);
  }

  /** Replaces a user with what `next` makes of it, then (de)provisions the person and ends their accesses. */
  protected async write(p: Principal, id: string, ifMatch: string | undefined, next: (current: ScimUser) => ReturnType<typeof checkUser>): Promise<ScimUser> {
    const result = await this.mappedTeams.change(p, async (trx, applyTeams) => {
      const row = await this.rowToChange(trx, p, id, ifMatch);
      const input = next(await this.present(trx, row));
      const account = await peopleRepository.findUser(trx, row.user_id);
      if (account && input.email !== account.email) throw new ScimError(400, "The user's e-mail address cannot change: it names their account. Delete the user and create it again.", "mutability");
      const key = input.userName.toLowerCase();
      if (key !== row.user_name_key && (await scimRepository.userByName(trx, p.organizationId, key))) {
        throw new ScimError(409, `A user with userName '${input.userName}' exists already.`, "uniqueness");
      }
      const now = this.clock.now().toISOString();
      const updated: ScimUserRow = { ...row, user_name_key: key, active: input.active ? 1 : 0, doc: JSON.stringify(input.doc), version: row.version + 1, updated_at: now };
      if (!(await scimRepository.updateUser(trx, updated, row.version))) throw new ScimError(412, "The user changed while this request was made; read it again.");
      if (input.active) await provision(trx, p.organizationId, row.id, row.user_id, now);
      else await deprovision(trx, p.organizationId, row.user_id);
      const standing = await teamStandingOf(trx, p.organizationId, id);
      if (standing) await applyTeams(standing.email, standing.groups);
      return { user: await this.present(trx, updated), email: account?.email, active: input.active, userId: row.user_id };
    });
    if (!result.active) await this.endAccesses(p, result.userId, result.email);
    return result.user;
  }

  async delete(p: Principal, id: string, ifMatch?: string): Promise<void> {
    policy.manageMembers(p);
    const gone = await this.mappedTeams.change(p, async (trx, applyTeams) => {
      const row = await this.rowToChange(trx, p, id, ifMatch);
      await deprovision(trx, p.organizationId, row.user_id);
      await scimRepository.deleteUser(trx, p.organizationId, id);
      const email = (await peopleRepository.findUser(trx, row.user_id))?.email;
      if (email) await applyTeams(email, null);
      return { userId: row.user_id, email };
    });
    await this.endAccesses(p, gone.userId, gone.email);
  }

  /** Runs after the person left: safe to repeat (a retried request ends nothing twice). */
  private async endAccesses(p: Principal, userId: string, email: string | undefined): Promise<void> {
    await this.access.endForPerson(p, email ? [userId, email] : [userId]);
  }
}
