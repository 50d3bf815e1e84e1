/**
 * Paths into a request body as violations name them: `schema[0].specification.models[1].name`,
 * with `a["odd key"]` for keys that a dot would garble.
 */
export type Segment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export function joinPath(base: string, segment: Segment): string {
  if (typeof segment === "number") return `${base}[${segment}]`;
  if (IDENTIFIER.test(segment)) return base === "" ? segment : `${base}.${segment}`;
  return `${base}[${JSON.stringify(segment)}]`;
}

export function renderPath(base: string, path: readonly Segment[]): string {
  let out = base;
  for (const segment of path) out = joinPath(out, segment);
  return out;
}

/** The segments of a rendered path: `schema[0]["odd key"].name` → `["schema", 0, "odd key", "name"]`. */
export function parsePath(path: string): Segment[] {
  const segments: Segment[] = [];
  const pattern = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/gy;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < path.length && (match = pattern.exec(path)) !== null) {
    if (match[1] !== undefined) segments.push(Number(match[1]));
    else if (match[2] !== undefined) segments.push(JSON.parse(match[2]) as string);
    else segments.push(match[3]!);
  }
  return segments;
}
