import { hash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database, Executor } from "../../platform/database/index.js";
import { invalid, notFound, preconditionFailed, type FieldViolation } from "../../platform/errors.js";
import type { EventExtras } from "../../events/kinds.js";
import type { Emit, EventLog } from "../../events/log.js";
import { checkDocumentSize, type DocumentLimits } from "./document-limits.js";
import { DocumentReads } from "./document-reads.js";
import { resourceRepository, type ListFilter, type ResourceColumns, type ResourceKind, type StoredResource } from "./resource-repository.js";
import { withMembers } from "../../platform/objects.js";
import { keepYamlSource } from "../../platform/yaml-sources.js";

export type Document = Record<string, unknown> & { id: string };

/**
 * What makes one kind of catalog document different from another. Everything else — upsert,
 * read, list, delete, the event transaction — is the same for teams, data products, data
 * contracts and connectors, and lives in DocumentService.
 */
export interface CatalogKind<D extends Document> {
  kind: ResourceKind;
  /** Human name used in messages, e.g. "Data product". */
  label: string;
  /** Indexed columns derived from the document. */
  columns(doc: D): Omit<ResourceColumns, "json">;
  /** Sets read-only and derived members; `before` is the stored document on update. */
  prepare?(doc: D, before: D | undefined): D;
  /** Throws 403 unless the principal may make the change (`after` undefined = delete). */
  authorize(p: Principal, id: string, before: D | undefined, after: D | undefined): void;
  /** Throws 403 unless the principal may read this kind; reads are open to every key when absent. */
  authorizeRead?(p: Principal): void;
  /**
   * Checks that need no database and may take long (parsing schemas, off the event loop). They
   * run before the write transaction opens, so no lock is held while they work.
   */
  precheck?(doc: D): Promise<FieldViolation[]>;
  /** Checks that need the database (references to other resources). */
  validate?(ex: Executor, organizationId: string, doc: D): Promise<FieldViolation[]>;
  /** Emits the change's events; `after` undefined = deleted; `extras` come from `review`. */
  emitChange(emit: Emit, id: string, before: D | undefined, after: D | undefined, extras?: EventExtras): void;
  /**
   * Judges an update inside its transaction (a contract's breaking-change gate): throws to refuse
   * it, or returns payload members for its Updated event. `options` are the PUT's query parameters.
   */
  review?(ex: Executor, p: Principal, before: D, after: D, options: WriteOptions): Promise<EventExtras | undefined>;
  /**
   * Judges every create and update inside its transaction by the organization's policies
   * (docs/policies.md): throws to refuse it, or returns payload members (the verdicts) for its
   * Created or Updated event.
   */
  gate?(ex: Executor, p: Principal, before: D | undefined, after: D): Promise<EventExtras | undefined>;
  /** Runs in the transaction after a document was written (`after`: it and its JSON text as stored) or deleted (undefined). */
  written?(ex: Executor, p: Principal, id: string, after: { doc: D; json: string } | undefined): Promise<void>;
  /** Runs in the transaction of a PUT that changes nothing in the document (its YAML text as sent may still differ). */
  unchanged?(ex: Executor, p: Principal, id: string, incoming: D): Promise<void>;
  /** Throws 409 when the change would pull something in use from under it. */
  checkUpdatable?(ex: Executor, organizationId: string, before: D, after: D): Promise<void>;
  /** Throws 409 when the document is still in use and cannot be deleted. */
  checkDeletable?(ex: Executor, organizationId: string, doc: D): Promise<void>;
}

/** Query parameters of a PUT that a kind's `review` may read (`allowBreaking`). */
export type WriteOptions = Record<string, string | undefined>;

export interface PutResult<D> {
  doc: D;
  /** `doc` as stored: the JSON text the answer sends as it is. */
  json: string;
  created: boolean;
  /** The entity tag of `json`. */
  etag: string;
}

/** The request's conditions on the stored version (docs/product.md §3, optimistic concurrency). */
export interface Preconditions {
  /** `If-Match`: a list of entity tags, or `*`. */
  ifMatch?: string;
  /** `If-None-Match: *`: create only. */
  ifNoneMatch?: string;
}

/**
 * The entity tag of a stored document: a digest of its JSON text as stored (`JSON.stringify` of
 * the document), so equal documents share it and reading one needs no serialization. Every GET and
 * PUT makes one: the one-shot `hash` skips the Hash object `createHash` builds for each.
 */
export function etagOfJson(json: string): string {
  return `"${hash("sha256", json, "base64url").slice(0, 27)}"`;
}

/** Whether an `If-None-Match`/`If-Match` list names the tag (or is `*`). Weak tags compare by their opaque part. */
export function tagListMatches(list: string, etag: string): boolean {
  return list.split(",").some((raw) => {
    const tag = raw.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

/** `before`: the stored document's JSON text, whose digest is its ETag; undefined when there is none. */
export function checkPreconditions(label: string, id: string, before: string | undefined, conditions: Preconditions): void {
  if (conditions.ifNoneMatch !== undefined && before !== undefined && tagListMatches(conditions.ifNoneMatch, etagOfJson(before))) {
    throw preconditionFailed(`${label} '${id}' already exists (If-None-Match); nothing was changed.`);
  }
  if (conditions.ifMatch !== undefined && (before === undefined || !tagListMatches(conditions.ifMatch, etagOfJson(before)))) {
    throw preconditionFailed(
      before === undefined
        ? `${label} '${id}' does not exist, so If-Match cannot match; nothing was changed.`
        : `${label} '${id}' has changed since the version named in If-Match; read it again. Nothing was changed.`,
    );
  }
}

export class DocumentService<D extends Document> {
  /** Reads of one document outside a transaction, made together with other requests' reads. */
  readonly #reads: DocumentReads;

  constructor(
    readonly catalogKind: CatalogKind<D>,
    protected readonly database: Database,
    protected readonly events: EventLog,
    protected readonly clock: Clock,
    /** The size limits of the application this service serves. */
    protected readonly documentLimits: DocumentLimits,
  ) {
    this.#reads = new DocumentReads(database);
  }

  async put(p: Principal, id: string, body: Record<string, unknown>, conditions: Preconditions = {}, options: WriteOptions = {}): Promise<PutResult<D>> {
    if (body.id !== undefined && body.id !== id) {
      throw invalid(`The body's id must equal the id in the path ('${id}') or be absent.`, [
        { field: "id", message: `must equal '${id}' or be absent` },
      ]);
    }
    // A YAML body's text stays known for the copy, for a kind that keeps it (data contracts).
    const incoming = keepYamlSource(body, withMembers(body, { id }) as D);
    // Stringified once: measured against the limit, then, unless `prepare` makes another document
    // of it, stored, kept as a contract version, digested for the ETag and sent as the answer.
    const incomingJson = JSON.stringify(incoming);
    // Size first: a document over the limit is not parsed at all.
    checkDocumentSize(this.catalogKind.label, incomingJson, this.documentLimits);
    const prechecked = (await this.catalogKind.precheck?.(incoming)) ?? [];
    // The ETag is digested after the transaction: a big document's hash need not hold the group.
    const written = await this.events.transaction(p, (trx, emit) => this.writeIn(trx, emit, p, id, incoming, incomingJson, prechecked, conditions, options));
    const { doc, created, json } = written;
    return { doc, created, json, etag: etagOfJson(json) };
  }

  /**
   * The same write as `put`, as part of a change of another kind whose transaction is open already
   * (the group mapping's team entries, written with the SCIM change or sign-in that causes them:
   * docs/identity.md, "Teams from groups"), so both commit or neither does.
   */
  async putWithin(trx: Executor, emit: Emit, p: Principal, id: string, body: D, conditions: Preconditions = {}): Promise<PutResult<D>> {
    const incoming = withMembers(body, { id }) as D;
    const incomingJson = JSON.stringify(incoming);
    checkDocumentSize(this.catalogKind.label, incomingJson, this.documentLimits);
    const prechecked = (await this.catalogKind.precheck?.(incoming)) ?? [];
    const { doc, created, json } = await this.writeIn(trx, emit, p, id, incoming, incomingJson, prechecked, conditions, {});
    return { doc, created, json, etag: etagOfJson(json) };
  }

  /** The checks and the write of `put` and `putWithin`, inside the change's transaction. */
  private async writeIn(trx: Executor, emit: Emit, p: Principal, id: string, incoming: D, incomingJson: string, prechecked: FieldViolation[], conditions: Preconditions, options: WriteOptions) {
    const { kind } = this.catalogKind;
    const existing = await resourceRepository.get<D>(trx, p.organizationId, kind, id, { lock: this.database.dialect });
    const before = existing?.doc;
    checkPreconditions(this.catalogKind.label, id, existing?.json, conditions);
    const after = this.catalogKind.prepare ? this.catalogKind.prepare(incoming, before) : incoming;
    this.catalogKind.authorize(p, id, before, after);
    const violations = [...((await this.catalogKind.validate?.(trx, p.organizationId, after)) ?? []), ...prechecked];
    if (violations.length > 0) throw invalid(`The ${this.catalogKind.label.toLowerCase()} is not valid.`, violations);
    // A PUT that changes nothing writes nothing and tells no one.
    if (existing !== undefined && isDeepStrictEqual(before, after)) {
      await this.catalogKind.unchanged?.(trx, p, id, incoming);
      return { doc: existing.doc, created: false, json: existing.json };
    }
    if (before !== undefined) await this.catalogKind.checkUpdatable?.(trx, p.organizationId, before, after);
    const reviewed = before === undefined ? undefined : await this.catalogKind.review?.(trx, p, before, after, options);
    const gated = await this.catalogKind.gate?.(trx, p, before, after);
    const extras = gated === undefined ? reviewed : { ...reviewed, ...gated };
    const json = after === incoming ? incomingJson : JSON.stringify(after);
    await this.store(trx, emit, p, id, before, { doc: after, json }, extras);
    return { doc: after, created: before === undefined, json };
  }

  /**
   * Writes `after` (and its JSON text) in place of `before` (undefined: a new document) inside the
   * change's transaction, with what every write of a document does: its columns, the kind's
   * `written` step and its events. Checks are the caller's.
   */
  protected async store(trx: Executor, emit: Emit, p: Principal, id: string, before: D | undefined, after: { doc: D; json: string }, extras?: EventExtras): Promise<void> {
    const { kind } = this.catalogKind;
    const columns = withMembers(this.catalogKind.columns(after.doc), { json: after.json });
    const at = this.clock.now().toISOString();
    if (before === undefined) await resourceRepository.insert(trx, p.organizationId, kind, id, columns, at);
    else await resourceRepository.update(trx, p.organizationId, kind, id, columns, at);
    await this.catalogKind.written?.(trx, p, id, after);
    this.catalogKind.emitChange(emit, id, before, after.doc, extras);
  }

  async get(p: Principal, id: string): Promise<D> {
    return (await this.getStored(p, id)).doc;
  }

  /**
   * What can be decided before a change's body is read: whether the principal may change the
   * document as it is stored (or, for a new one, at this id) at all, whatever the body says. It is
   * judged as an edit that keeps the stored document's owner; the change checks again, with the
   * body and what it really does (add, edit or delete), inside its transaction.
   */
  async authorizeBeforeBody(p: Principal, id: string): Promise<void> {
    if (p.scope === "organization") return;
    const stored = await this.#reads.get<D>(p.organizationId, this.catalogKind.kind, id);
    this.catalogKind.authorize(p, id, stored?.doc, stored?.doc);
  }

  /** One document as stored: its JSON text at hand, the document parsed only when read. */
  async getStored(p: Principal, id: string): Promise<StoredResource<D>> {
    this.catalogKind.authorizeRead?.(p);
    const found = await this.#reads.get<D>(p.organizationId, this.catalogKind.kind, id);
    if (!found) throw notFound(this.catalogKind.label, id);
    return found;
  }

  /** The document with this id, as an internal read (no authorization): undefined when there is none. */
  async find(organizationId: string, id: string, ex: Executor = this.database.db): Promise<D | undefined> {
    return (await resourceRepository.get<D>(ex, organizationId, this.catalogKind.kind, id))?.doc;
  }

  /** One page of documents as stored (see `getStored`); `cut` says the page ended at the byte limit with more to follow. */
  async listStored(p: Principal, filter: ListFilter): Promise<{ rows: StoredResource<D>[]; cut: boolean }> {
    this.catalogKind.authorizeRead?.(p);
    return resourceRepository.list<D>(this.database.db, p.organizationId, this.catalogKind.kind, filter, this.documentLimits.pageBytes, this.database.dialect);
  }

  async delete(p: Principal, id: string, conditions: Preconditions = {}): Promise<void> {
    const { kind } = this.catalogKind;
    await this.events.transaction(p, async (trx, emit) => {
      const existing = await resourceRepository.get<D>(trx, p.organizationId, kind, id, { lock: this.database.dialect });
      if (!existing) throw notFound(this.catalogKind.label, id);
      checkPreconditions(this.catalogKind.label, id, existing.json, { ifMatch: conditions.ifMatch });
      this.catalogKind.authorize(p, id, existing.doc, undefined);
      await this.catalogKind.checkDeletable?.(trx, p.organizationId, existing.doc);
      await resourceRepository.delete(trx, p.organizationId, kind, id);
      await this.catalogKind.written?.(trx, p, id, undefined);
      this.catalogKind.emitChange(emit, id, existing.doc, undefined);
    });
  }
}

/** Lower-cased text the `q` filter matches: id, title and description. */
export function searchText(...parts: Array<unknown>): string {
  return parts
    .filter((x): x is string => typeof x === "string")
    .join("\n")
    .toLowerCase();
}
