import { FeedConsumerError, isRetryableStatus, type ProblemDetails } from "./errors.js";

export type FetchLike = typeof fetch;

export interface StewardClientOptions {
  /** Where Steward serves, e.g. `http://localhost:8080` (a trailing `/` is ignored). */
  baseUrl: string;
  /** Sent as `x-api-key`; never logged nor put in error messages. */
  apiKey: string;
  /** Defaults to the global `fetch`. */
  fetch?: FetchLike;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** A small JSON client for Steward's API. Every non-2xx answer throws a {@link FeedConsumerError}. */
export class StewardClient {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: FetchLike;

  constructor(options: StewardClientOptions) {
    if (!options.baseUrl) throw new TypeError("StewardClient: baseUrl is required");
    if (!options.apiKey) throw new TypeError("StewardClient: apiKey is required");
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  get<T = unknown>(path: string, options?: RequestOptions): Promise<T> {
    return this.request<T>("GET", path, undefined, options);
  }

  put<T = unknown>(path: string, body: unknown, options?: RequestOptions): Promise<T> {
    return this.request<T>("PUT", path, body, options);
  }

  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<T> {
    return this.request<T>("POST", path, body, options);
  }

  /** `path` starts with `/api/…`; the answer's JSON body, or `undefined` for an empty body (204). */
  async request<T = unknown>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    const what = `${method} ${path}`;
    const headers: Record<string, string> = { "x-api-key": this.#apiKey, accept: "application/json, application/problem+json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: options.signal,
      });
      text = await response.text();
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new FeedConsumerError(`${what} failed: no answer from ${this.baseUrl} (${describe(error)})`, { retryable: true, cause: error });
    }
    if (!response.ok) {
      const problem = parseProblem(text);
      const detail = problem?.detail ?? (text.trim().slice(0, 200) || undefined);
      const title = problem?.title ?? response.statusText;
      throw new FeedConsumerError(`${what} answered ${response.status}${title ? ` ${title}` : ""}${detail ? `: ${detail}` : ""}`, {
        status: response.status,
        detail,
        problem,
        retryable: isRetryableStatus(response.status),
      });
    }
    if (text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      // A truncated or proxied answer: worth asking again.
      throw new FeedConsumerError(`${what} answered ${response.status} with a body that is not JSON`, {
        status: response.status,
        retryable: true,
        cause: error,
      });
    }
  }
}

function parseProblem(text: string): ProblemDetails | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as ProblemDetails) : undefined;
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
