/** The web app's only way to the server: /api (and /auth for signing in), with the session cookie. */
import type { Static } from "@sinclair/typebox";
import type { ApiKeySchema } from "../../src/modules/api-keys/shapes.js";
import type { ChangeReportSchema, ContractVersionSummarySchema } from "../../src/modules/datacontracts/versions/shapes.js";
import type { Violation } from "./violation.js";
import { idSegment } from "../../src/webapp/page-paths.js";

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

export interface Session {
  user: { id: string; email: string };
  organizations: Array<{ id: string; name: string; role: "owner" | "member" }>;
  currentOrganizationId: string | null;
  role: "owner" | "member" | null;
  scope: "organization" | "team" | null;
  teamIds: string[];
  csrfToken: string;
}

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
}

/** A response body with the resource's version (ETag), when the server sent one. */
export interface Versioned<T> {
  data: T;
  etag?: string;
  /** A list's next page, when the server named one (`Link: <…>; rel="next"`). */
  next?: string;
}

export async function send<T = unknown>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Versioned<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  if (options.ifMatch) headers["if-match"] = options.ifMatch;
  if (options.ifNoneMatch) headers["if-none-match"] = options.ifNoneMatch;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin", cache: "no-store" });
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
  return { data: data as T, etag: response.headers.get("etag") ?? undefined, next };
}

export async function call<T = unknown>(method: string, path: string, body?: unknown, options?: CallOptions): Promise<T> {
  return (await send<T>(method, path, body, options)).data;
}

export const get = <T = unknown>(path: string) => call<T>("GET", path);

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
export { pagePath, type PageKind } from "../../src/webapp/page-paths.js";

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
export type { Connector } from "../../src/modules/connectors/shapes.js";

export type ContractVersionSummary = Static<typeof ContractVersionSummarySchema>;
export type ChangeReport = Static<typeof ChangeReportSchema>;
export type ContractChange = ChangeReport["changes"][number];
export type AffectedAccess = ChangeReport["affectedAccesses"][number];

export type ApiKey = Static<typeof ApiKeySchema> & { revokedByName?: string | null };

export interface Member {
  email: string;
  role: "owner" | "member";
  status: "active" | "invited";
  userId: string | null;
  createdAt: string;
  expiresAt: string | null;
  invitationUrl?: string;
}

export interface Invitation {
  organizationName: string;
  email: string | null;
  role: "owner" | "member";
  expiresAt: string;
  accountExists: boolean;
  signedInAs: string | null;
}

export interface CloudEvent {
  id: string;
  type: string;
  time: string;
  subject: string;
  principal?: string;
  data: { id: string; timestamp: string; outputPortId?: string; status?: string };
}

export type { Policy, Rule } from "../../src/modules/policies/shapes.js";
export type { ClassificationScheme } from "../../src/modules/classification-schemes/shapes.js";
export type { Certification } from "../../src/modules/certifications/shapes.js";
export type { DryRun, Finding } from "../../src/modules/policies/dry-run.js";
export type { AccessPolicyView } from "../../src/modules/policies/access-preview.js";
