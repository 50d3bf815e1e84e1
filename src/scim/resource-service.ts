import { scimPatch, type ScimResource } from "scim-patch";
import type { Principal } from "../platform/auth.js";
import type { Clock } from "../platform/clock.js";
import type { Database, DialectName, Executor } from "../platform/database/index.js";
import type { MappedTeams } from "../identity/team-membership.js";
import { policy } from "../policies/index.js";
import { scimNotFound } from "./errors.js";
import { checkIfMatch, etagOf, listResponse, objectBody, patchOperations, type ListQuery } from "./resources.js";

/** The columns every SCIM resource's row has (repository.ts). */
interface ResourceRow {
  id: string;
  organization_id: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** What the service of a SCIM resource type is made with (src/identity/services.ts). */
export type ScimServiceArgs = [database: Database, clock: Clock, baseUrl: string, mappedTeams: MappedTeams];

/** Where a resource type's rows are read (repository.ts). */
export interface ResourceRows<Row> {
  all(ex: Executor, organizationId: string): Promise<Row[]>;
  /** `lock` (PostgreSQL) holds the row until the transaction ends. */
  one(ex: Executor, organizationId: string, id: string, lock?: DialectName): Promise<Row | undefined>;
}

/**
 * What the services of SCIM users and groups do alike (RFC 7644 §3): answer the list, every
 * resource and one by its id, each as `present` renders a row; replace or change one (PUT, PATCH)
 * through `check` and `write`; all for principals who manage members.
 */
export abstract class ScimResourceService<Row extends ResourceRow, Resource extends object, Input> {
  constructor(
    private readonly resourceType: "User" | "Group",
    private readonly rows: ResourceRows<Row>,
    protected readonly database: Database,
    protected readonly clock: Clock,
    protected readonly baseUrl: string,
    /** Runs each change with the mapping's team entries it causes (docs/identity.md). */
    protected readonly mappedTeams: MappedTeams,
  ) {}

  protected abstract present(ex: Executor, row: Row): Promise<Resource>;

  /** What a request's document says, checked. */
  protected abstract check(raw: Record<string, unknown>): Input;

  /** Replaces the resource with what `next` makes of its current form. */
  protected abstract write(p: Principal, id: string, ifMatch: string | undefined, next: (current: Resource) => Input): Promise<Resource>;

  async list(p: Principal, query: ListQuery) {
    return listResponse(await this.all(p), query);
  }

  /** Every resource of the organization, for a list or a search to filter, sort and page. */
  async all(p: Principal): Promise<Resource[]> {
    policy.manageMembers(p);
    const db = this.database.db;
    return Promise.all((await this.rows.all(db, p.organizationId)).map((row) => this.present(db, row)));
  }

  async get(p: Principal, id: string): Promise<Resource> {
    policy.manageMembers(p);
    const row = await this.rows.one(this.database.db, p.organizationId, id);
    if (!row) throw scimNotFound(this.resourceType, id);
    return this.present(this.database.db, row);
  }

  async replace(p: Principal, id: string, body: unknown, ifMatch?: string): Promise<Resource> {
    policy.manageMembers(p);
    return this.write(p, id, ifMatch, () => this.check(objectBody(body)));
  }

  async patch(p: Principal, id: string, body: unknown, ifMatch?: string): Promise<Resource> {
    policy.manageMembers(p);
    const operations = patchOperations(body);
    return this.write(p, id, ifMatch, (current) => this.check(scimPatch(current as unknown as ScimResource, operations) as unknown as Record<string, unknown>));
  }

  /** The row a change is made to, locked until its transaction ends; a 404 when there is none, a 412 when `ifMatch` names another version. */
  protected async rowToChange(trx: Executor, p: Principal, id: string, ifMatch: string | undefined): Promise<Row> {
    const row = await this.rows.one(trx, p.organizationId, id, this.database.dialect);
    if (!row) throw scimNotFound(this.resourceType, id);
    checkIfMatch(ifMatch, row.version);
    return row;
  }

  /** A resource's `meta` (RFC 7643 §3.1): its type, times, location and version. */
  protected meta(row: Row) {
    const location = `${this.baseUrl}/api/scim/v2/${this.resourceType}s/${row.id}`;
    return { resourceType: this.resourceType, created: row.created_at, lastModified: row.updated_at, location, version: etagOf(row.version) };
  }
}
