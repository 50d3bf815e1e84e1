import { expect } from "vitest";
import { referenceSchema } from "../helpers/reference.js";
import { request, type ApiResponse } from "../helpers/server.js";

/**
 * The wire behaviour of the reference SDK's generated Java client (openapi-generator 7.15,
 * `java` generator, `apache-httpclient` library, Jackson with NON_NULL inclusion), so replays send
 * what a connector built on the SDK sends:
 * - the key in `x-api-key` (the bearer scheme stays unset, so no Authorization header);
 * - `Accept` is the first JSON media type among the operation's documented responses;
 * - JSON bodies go out as `application/json; charset=UTF-8`;
 * - the generator's default User-Agent and Apache HttpClient's Accept-Encoding.
 */
export const SDK_USER_AGENT = "OpenAPI-Generator/1.0.0/java";
const SDK_CONTENT_TYPE = "application/json; charset=UTF-8";

export interface SdkCall {
  method: string;
  path: string;
  status: number;
}

export class SdkClient {
  /** Every request sent, in order, for assertions about what the client did. */
  readonly calls: SdkCall[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  async send<T = any>(method: string, path: string, accept: string | null, body?: unknown): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { "user-agent": SDK_USER_AGENT, "accept-encoding": "gzip, x-gzip, deflate" };
    if (accept) headers.accept = accept;
    const res = await request<T>(this.baseUrl, method, path, body, { key: this.apiKey, headers, contentType: SDK_CONTENT_TYPE });
    this.calls.push({ method, path, status: res.status });
    return res;
  }

  /** Like the generated client: anything but 2xx is an ApiException, here a failed expectation. */
  async ok<T = any>(method: string, path: string, accept: string | null, body?: unknown): Promise<ApiResponse<T>> {
    const res = await this.send<T>(method, path, accept, body);
    expect(res.status, `${method} ${path}: ${res.text}`).toBeGreaterThanOrEqual(200);
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res;
  }
}

/**
 * A JSON object after a trip through the SDK's generated model class for `schemaName`: members
 * the class does not know are dropped (unknown properties are ignored on read), nulls are left
 * out, and list and map members that were absent come back empty, because the 7.x generator
 * initialises container fields (`containerDefaultToNull` is off in the SDK's build).
 */
export function throughGeneratedModel(schemaName: string, value: Record<string, unknown>): Record<string, unknown> {
  return restrict(referenceSchema(schemaName), value);
}

function restrict(schema: any, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
    const member = value[name];
    if (member === undefined || member === null) {
      if (property.type === "array") out[name] = [];
      else if (property.type === "object" && !property.properties && property.additionalProperties) out[name] = {};
      continue;
    }
    out[name] = property.type === "object" && property.properties && typeof member === "object" ? restrict(property, member as Record<string, unknown>) : member;
  }
  return out;
}

/** Accept of an operation whose documented answers are JSON (and problem+json for errors). */
export const ACCEPT_JSON = "application/json";
/** Accept of an operation whose only documented JSON answer is an error (e.g. putConnector). */
export const ACCEPT_PROBLEM = "application/problem+json";
/** Accept of pollEvents. */
export const ACCEPT_EVENTS = "application/cloudevents-batch+json";
