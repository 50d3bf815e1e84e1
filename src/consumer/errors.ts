/** An RFC 9457 problem as Steward sends it. */
export interface ProblemDetails {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  violations?: { field: string; message: string }[];
  [key: string]: unknown;
}

export interface FeedConsumerErrorOptions {
  /** HTTP status; absent when no response arrived (network failure). */
  status?: number;
  detail?: string;
  problem?: ProblemDetails;
  /** Whether waiting and asking again may succeed (5xx, 408, 429, network failure). */
  retryable: boolean;
  cause?: unknown;
}

/**
 * A request to Steward that failed: a non-2xx answer, an unreadable answer, or no answer at all.
 * Its message never contains the API key.
 */
export class FeedConsumerError extends Error {
  override readonly name = "FeedConsumerError";
  readonly status: number | undefined;
  readonly detail: string | undefined;
  readonly problem: ProblemDetails | undefined;
  readonly retryable: boolean;

  constructor(message: string, options: FeedConsumerErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.detail = options.detail;
    this.problem = options.problem;
    this.retryable = options.retryable;
  }
}

export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** True for the rejection of an aborted fetch or wait. */
export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && error === signal.reason) return true;
  return error instanceof Error && (error.name === "AbortError");
}
