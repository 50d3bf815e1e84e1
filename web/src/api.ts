/** The web app's only way to the server: /api (and /auth for signing in), with the session cookie. */
import type { Static } from "@sinclair/typebox";
import type { ApiKeySchema } from "../../src/modules/api-keys/shapes.js";
import type { ChangeReportSchema, ContractVersionSummarySchema } from "../../src/modules/datacontracts/versions/shapes.js";
import type { InvitationViewSchema, MemberSchema, SessionViewSchema } from "../../src/modules/people/shapes.js";
import type { CloudEventSchema } from "../../src/events/shapes.js";
import type { LineageViolationsSchema } from "../../src/modules/lineage/shapes.js";
import type { LatestTestResultsSchema } from "../../src/modules/test-results/shapes.js";
import type { Violation } from "./violation.js";
import { idSegment } from "../../src/platform/http/page-paths.js";

export type { Violation };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly violations: Violation[] = [],
    /** The problem's title, e.g. "Conflict": used as the heading of the message. */
    readonly title = "",
    /** The problem document's other members (e.g. a refused breaking change's `breakingChanges`). */
    readonly extras: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

export type Session = Static<typeof SessionViewSchema>;

let csrfToken = "";
let onUnauthorized: () => void = () => {};

export function useCsrfToken(token: string): void {
  csrfToken = token;
}

export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export interface CallOptions {
  /** Write only if the resource is still the version read (optimistic concurrency, 412 otherwise). */
  ifMatch?: string;
  /** Create only: `*` makes the server refuse (412) when the id exists. */
  ifNoneMatch?: "*";
  /** Send this YAML text (application/yaml) instead of the body as JSON: the same document, as written. */
  yaml?: string;
}

/** A response body with the resource's version (ETag), when the server sent one. */
export interface Versioned<T> {
  data: T;
  etag?: string;
  /** A list's next page, when the server named one (`Link: <…>; rel="next"`). */
  next?: string;
  /** The answer's headers, for what an operation says beside its body (`steward-notified`). */
  headers?: Headers;
}

export async function send<T = unknown>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Versioned<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = options.yaml !== undefined ? "application/yaml" : "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  if (options.ifMatch) headers["if-match"] = options.ifMatch;
  if (options.ifNoneMatch) headers["if-none-match"] = options.ifNoneMatch;
  let response: Response;
  try {
    const payload = body === undefined ? undefined : (options.yaml ?? JSON.stringify(body));
    response = await fetch(path, { method, headers, body: payload, credentials: "same-origin", cache: "no-store" });
  } catch {
    throw new ApiError(0, "Steward cannot be reached. Check your connection and try again.", [], "No connection");
  }
  const text = await response.text();
  let data: any;
  try {
    data = text && /json/.test(response.headers.get("content-type") ?? "") ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    if (response.status === 401 && path.startsWith("/api/")) onUnauthorized();
    throw new ApiError(response.status, data?.detail ?? `${response.status} ${response.statusText}`, data?.violations ?? [], data?.title ?? response.statusText, data && typeof data === "object" ? data : {});
  }
  const next = /<([^>]*)>\s*;\s*rel="?next"?/.exec(response.headers.get("link") ?? "")?.[1];
  return { data: data as T, etag: response.headers.get("etag") ?? undefined, next, headers: response.headers };
}

export async function call<T = unknown>(method: string, path: string, body?: unknown, options?: CallOptions): Promise<T> {
  return (await send<T>(method, path, body, options)).data;
}

export const get = <T = unknown>(path: string) => call<T>("GET", path);

/** A text answer (a contract's YAML), or the problem it was. */
export async function getText(path: string): Promise<string> {
  const response = await fetch(path, { credentials: "same-origin", cache: "no-store" });
  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, `${response.status} ${response.statusText}`);
  return text;
}

/** Every item of a list, page after page, for the lists a page shows whole (keys, members). */
export async function getAll<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  for (let next: string | undefined = path; next !== undefined; ) {
    const page: Versioned<T[]> = await send<T[]>("GET", next);
    items.push(...page.data);
    next = page.next;
  }
  return items;
}

/** `/api/teams?q=…` without empty parameters. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

/** An id as one path segment, of a page or an /api path: percent-encoded, and `.`/`..` escaped (page-paths.ts). */
export const enc = idSegment;
export { pagePath, type PageKind } from "../../src/platform/http/page-paths.js";

// The server's own shapes, so the two cannot drift apart.
export type { Team } from "../../src/modules/teams/shapes.js";
export type { DataProduct, OutputPort } from "../../src/modules/dataproducts/shapes.js";
export type { DataContract, SchemaObject } from "../../src/modules/datacontracts/shapes.js";
export type { Access, HistoryEntry, Provisioning } from "../../src/modules/access/shapes.js";
export type { NormalizedField, NormalizedModel } from "../../src/schema-formats/types.js";
export type { Asset } from "../../src/modules/assets/shapes.js";
export type { SourceSystem } from "../../src/modules/sourcesystems/shapes.js";
export type { Definition } from "../../src/modules/definitions/shapes.js";
export type { Tag } from "../../src/modules/tags/shapes.js";
export type { TestResults } from "../../src/modules/test-results/shapes.js";
export type LatestTestResults = Static<typeof LatestTestResultsSchema>;
export type { ContractView, ViewField, ViewModel, ViewRule } from "../../src/contract-view/shapes.js";
export type { Connector } from "../../src/modules/connectors/shapes.js";

export type ContractVersionSummary = Static<typeof ContractVersionSummarySchema>;
export type ChangeReport = Static<typeof ChangeReportSchema>;
export type ContractChange = ChangeReport["changes"][number];
export type AffectedAccess = ChangeReport["affectedAccesses"][number];

export type ApiKey = Static<typeof ApiKeySchema>;

export type Member = Static<typeof MemberSchema>;
export type Invitation = Static<typeof InvitationViewSchema>;
/** An event of the feed; `data` carries more members for some kinds (`outputPortId`, `status`, …). */
export type CloudEvent = Static<typeof CloudEventSchema> & { data: { outputPortId?: string; status?: string } };

export type { Policy, Rule } from "../../src/modules/policies/shapes.js";
export type { ClassificationScheme } from "../../src/modules/classification-schemes/shapes.js";
export type { Certification } from "../../src/modules/certifications/shapes.js";
export type { DryRun, Finding } from "../../src/modules/policies/dry-run.js";
export type { AccessPolicyView } from "../../src/modules/policies/access-preview.js";

export type { LineageGraph, LineageNode } from "../../src/modules/lineage/shapes.js";
export type LineageViolation = Static<typeof LineageViolationsSchema>[number];
export type { DraftEvaluation } from "../../src/modules/policies/shapes.js";
