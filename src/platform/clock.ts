/**
 * Time comes from a clock object so tests can move it instead of sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests set and advance by hand. */
export class ManualClock implements Clock {
  private ms: number;
  constructor(start: Date | string = "2026-01-01T00:00:00.000Z") {
    this.ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  set(to: Date | string): void {
    this.ms = new Date(to).getTime();
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * ISO 8601 UTC with nine fractional digits: milliseconds from the clock, the digits below them
 * from the high-resolution timer.
 */
export function nanoTimestamp(date: Date): string {
  const subMs = Number(process.hrtime.bigint() % 1_000_000n);
  return date.toISOString().replace(/Z$/, `${String(subMs).padStart(6, "0")}Z`);
}

/**
 * Dates in requests may be a date-time or a plain date (00:00 UTC that day). Returns the
 * normalised ISO instant used for comparisons, or null when the text is neither.
 */
export function parseInstant(text: string): string | null {
  const plainDate = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(text);
  if (!plainDate && !dateTime) return null;
  const ms = Date.parse(plainDate ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) return null;
  const iso = new Date(ms).toISOString();
  // Date.parse rolls 2026-02-30 over to March; a date that does not exist is not a date.
  if (plainDate && !iso.startsWith(text)) return null;
  return iso;
}
