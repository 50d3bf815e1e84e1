import { expect } from "vitest";
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

/** A member of a generated model class: its JSON type, and for object members their own members. */
export interface ModelMember {
  type?: "string" | "boolean" | "array" | "object";
  /** A map member (e.g. `custom`): absent ones come back as an empty map. */
  map?: true;
  properties?: Record<string, ModelMember>;
}

/**
 * The SDK's generated model classes the replays go through, member by member as the reference
 * description declares them (test/replays/java-sdk.conformance.test.ts holds this table against
 * it). Members without a type are oneOf unions, taken as they come.
 */
export const GENERATED_MODELS: Record<string, Record<string, ModelMember>> = {
  Connector: {
    id: { type: "string" },
    info: { type: "object", properties: { type: { type: "string" }, description: { type: "string" }, connectorVersion: { type: "string" } } },
    state: { type: "object", map: true },
    custom: { type: "object", map: true },
  },
  Access: {
    id: { type: "string" },
    info: {
      type: "object",
      properties: {
        purpose: { type: "string" },
        individualAgreements: { type: "string" },
        status: { type: "string" },
        active: { type: "boolean" },
        startDate: { type: "string" },
        endDate: { type: "string" },
        nextReassessmentDate: { type: "string" },
      },
    },
    provider: {
      type: "object",
      properties: {
        dataProductId: { type: "string" },
        outputPortId: { type: "string" },
        teamId: { type: "string" },
        dataContractId: { type: "string" },
        dataContractVersion: { type: "string" },
      },
    },
    roles: { type: "array" },
    consumer: {},
    provisioning: {},
    tags: { type: "array" },
    links: { type: "object", map: true },
    custom: { type: "object", map: true },
  },
};

/**
 * A JSON object after a trip through the SDK's generated model class for `modelName`: members
 * the class does not know are dropped (unknown properties are ignored on read), nulls are left
 * out, and list and map members that were absent come back empty, because the 7.x generator
 * initialises container fields (`containerDefaultToNull` is off in the SDK's build).
 */
export function throughGeneratedModel(modelName: string, value: Record<string, unknown>): Record<string, unknown> {
  const model = GENERATED_MODELS[modelName];
  if (!model) throw new Error(`no generated model ${modelName} in GENERATED_MODELS`);
  return restrict(model, value);
}

function restrict(members: Record<string, ModelMember>, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(members)) {
    const given = value[name];
    if (given === undefined || given === null) {
      if (member.type === "array") out[name] = [];
      else if (member.map) out[name] = {};
      continue;
    }
    out[name] = member.properties && typeof given === "object" ? restrict(member.properties, given as Record<string, unknown>) : given;
  }
  return out;
}

/** Accept of an operation whose documented answers are JSON (and problem+json for errors). */
export const ACCEPT_JSON = "application/json";
/** Accept of an operation whose only documented JSON answer is an error (e.g. putConnector). */
export const ACCEPT_PROBLEM = "application/problem+json";
/** Accept of pollEvents. */
export const ACCEPT_EVENTS = "application/cloudevents-batch+json";
