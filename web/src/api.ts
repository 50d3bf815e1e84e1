/** The web app's only way to the server: /api (and /auth for signing in), with the session cookie. */
import type { Static } from "@sinclair/typebox";
import type { ApiKeySchema } from "../../src/modules/api-keys/shapes.js";

export interface Violation {
  field: string;
  message: string;
  line?: number;
  column?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly violations: Violation[] = [],
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

export async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
  } catch {
    throw new ApiError(0, "Steward cannot be reached. Check your connection and try again.");
  }
  const text = await response.text();
  const data = text && /json/.test(response.headers.get("content-type") ?? "") ? JSON.parse(text) : undefined;
  if (!response.ok) {
    if (response.status === 401 && path.startsWith("/api/")) onUnauthorized();
    throw new ApiError(response.status, data?.detail ?? `${response.status} ${response.statusText}`, data?.violations ?? []);
  }
  return data as T;
}

export const get = <T = unknown>(path: string) => call<T>("GET", path);

/** `/api/teams?q=…` without empty parameters. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

export const enc = encodeURIComponent;

// Shapes the pages read (the API returns more; unknown members are ignored here).
export interface Team {
  id: string;
  name: string;
  type?: string;
  description?: string;
  members?: Array<{ emailAddress: string; role?: string }>;
  [k: string]: unknown;
}

export interface OutputPort {
  id: string;
  name: string;
  description?: string;
  type?: string;
  status?: string;
  server?: Record<string, unknown>;
  dataContractId?: string;
  containsPii?: boolean;
  autoApprove?: boolean;
}

export interface DataProduct {
  id: string;
  info: { title: string; owner: string; description?: string; status?: string; archetype?: string; maturity?: string };
  outputPorts?: OutputPort[];
  tags?: string[];
}

export interface SchemaObject {
  type: string;
  specification: unknown;
}

export interface DataContract {
  id: string;
  dataContractSpecification?: string;
  info: { title: string; version: string; owner: string; description?: string; status?: string };
  provider?: { teamId?: string; dataProductId?: string; outputPortId?: string };
  terms?: { usage?: string; limitations?: string; billing?: string; noticePeriod?: string };
  schema: SchemaObject | SchemaObject[];
  tags?: string[];
  [k: string]: unknown;
}

// The server's own definitions, so the two cannot drift apart.
export type { NormalizedField, NormalizedModel } from "../../src/schema-formats/types.js";

export interface Provisioning {
  status: string;
  platform?: string;
  executor?: string;
  reference?: string;
  updatedAt?: string;
  [k: string]: unknown;
}

export interface Access {
  id: string;
  info: { purpose: string; status: "requested" | "approved" | "rejected" | "canceled"; active: boolean; startDate?: string | null; endDate?: string | null };
  provider: { dataProductId: string; outputPortId: string; teamId?: string | null; dataContractId?: string | null };
  consumer: { dataProductId?: string; teamId?: string; userId?: string };
  provisioning?: Provisioning | null;
  [k: string]: unknown;
}

export type ApiKey = Static<typeof ApiKeySchema>;

export interface Member {
  email: string;
  userId: string;
  role: "owner" | "member";
  createdAt: string;
  passwordSet: boolean;
  setupUrl?: string;
}

export interface CloudEvent {
  id: string;
  type: string;
  time: string;
  subject: string;
  data: { id: string; timestamp: string; outputPortId?: string; status?: string };
}
