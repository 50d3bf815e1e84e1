/**
 * How two values of one service level compare (docs/versions.md): which direction of each SLA
 * property promises more, as data, and the readings that make values comparable — durations
 * (`P1Y`, `25h`, `3` with unit `y`, `daily`), percentages (`99.9%`, `99.9`), numbers and dates.
 */
import type { SlaPromise } from "../contract-formats/promises.js";

type Measure = "duration" | "percentage" | "number" | "date" | "boolean";

/** For each property (lower case), what it measures and which way is the stronger promise. */
export const SERVICE_LEVEL_ORDER: Record<string, { measure: Measure; better: "higher" | "lower" }> = {
  retention: { measure: "duration", better: "higher" },
  retentionunlimited: { measure: "boolean", better: "higher" },
  latency: { measure: "duration", better: "lower" },
  freshness: { measure: "duration", better: "lower" },
  frequency: { measure: "duration", better: "lower" },
  availability: { measure: "percentage", better: "higher" },
  throughput: { measure: "number", better: "higher" },
  errorrate: { measure: "percentage", better: "lower" },
  supportresponsetime: { measure: "duration", better: "lower" },
  backupinterval: { measure: "duration", better: "lower" },
  recoverytime: { measure: "duration", better: "lower" },
  recoverypoint: { measure: "duration", better: "lower" },
  endofsupport: { measure: "date", better: "higher" },
  endoflife: { measure: "date", better: "higher" },
};

const SECONDS: Array<[RegExp, number]> = [
  [/^(s|sec|secs|second|seconds)$/, 1],
  [/^(m|min|mins|minute|minutes)$/, 60],
  [/^(h|hr|hrs|hour|hours)$/, 3600],
  [/^(d|day|days)$/, 86400],
  [/^(w|wk|week|weeks)$/, 7 * 86400],
  [/^(mo|mon|month|months)$/, 30 * 86400],
  [/^(y|yr|yrs|year|years)$/, 365 * 86400],
];

const WORDS: Record<string, number> = { realtime: 0, streaming: 0, continuous: 0, hourly: 3600, daily: 86400, weekly: 7 * 86400, monthly: 30 * 86400, quarterly: 91 * 86400, yearly: 365 * 86400, annually: 365 * 86400 };

function unitSeconds(unit: string): number | undefined {
  // ISO 8601 writes months as M; in a unit on its own, a capital M is a month, a small m a minute.
  if (unit === "M") return 30 * 86400;
  const u = unit.toLowerCase();
  return SECONDS.find(([re]) => re.test(u))?.[1];
}

/** Seconds of a duration as service levels write it, or undefined when it is not one. */
export function durationSeconds(value: unknown, unit?: string): number | undefined {
  if (typeof value === "number") {
    const per = unit === undefined ? undefined : unitSeconds(unit);
    return per === undefined ? undefined : value * per;
  }
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  const iso = /^P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(text);
  if (iso && text.length > 1 && !/T$/i.test(text)) {
    const [y, mo, w, d, h, mi, s] = iso.slice(1).map((n) => Number(n ?? 0));
    return y * 365 * 86400 + mo * 30 * 86400 + w * 7 * 86400 + d * 86400 + h * 3600 + mi * 60 + s;
  }
  const simple = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]+)$/.exec(text);
  if (simple) {
    const per = unitSeconds(simple[2]);
    return per === undefined ? undefined : Number(simple[1]) * per;
  }
  if (/^\d+(?:\.\d+)?$/.test(text) && unit !== undefined) return durationSeconds(Number(text), unit);
  return WORDS[text.toLowerCase()];
}

function measured(measure: Measure, p: SlaPromise): number | undefined {
  const v = p.value;
  switch (measure) {
    case "duration":
      return durationSeconds(v, p.unit);
    case "percentage":
    case "number": {
      const n = typeof v === "number" ? v : typeof v === "string" ? Number(v.trim().replace(/%$/, "")) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case "date": {
      const t = typeof v === "string" ? Date.parse(v) : NaN;
      return Number.isFinite(t) ? t : undefined;
    }
    case "boolean":
      return typeof v === "boolean" ? Number(v) : undefined;
  }
}

/** How the promise of `after` compares to that of `before`: stronger, weaker, or not comparable. */
export function compareServiceLevel(before: SlaPromise, after: SlaPromise): "same" | "stronger" | "weaker" | "incomparable" {
  const order = SERVICE_LEVEL_ORDER[before.property.toLowerCase()];
  if (order === undefined) return "incomparable";
  const a = measured(order.measure, before);
  const b = measured(order.measure, after);
  if (a === undefined || b === undefined) return "incomparable";
  if (a === b) return "same";
  return (b > a) === (order.better === "higher") ? "stronger" : "weaker";
}
