/**
 * Whether a field's type may change from one version to the next without breaking anyone:
 * logical types first (integer → number widens, string → integer does not), then, within one
 * logical type, the physical spelling (INT32 → INT64 widens, VARCHAR(50) → VARCHAR(20) narrows).
 */

export type TypeVerdict = "same" | "widened" | "respelled" | "incompatible";

/** Logical type moves that widen: every value of the old type is a value of the new one. */
const LOGICAL_WIDENING: Record<string, readonly string[]> = {
  integer: ["number"],
  enum: ["string"],
  date: [],
};

/** Integer physical types by width in bits. BigQuery's INTEGER/INT64 and PostgreSQL's int8 are 64. */
const INTEGER_BITS: Record<string, number> = {
  tinyint: 8, byte: 8, int1: 8,
  smallint: 16, short: 16, int2: 16, int16: 16,
  mediumint: 24,
  int: 32, int4: 32, int32: 32, integer: 32,
  bigint: 64, long: 64, int8: 64, int64: 64,
  hugeint: 128, int128: 128,
};

/** Binary floating-point types by width. BigQuery's FLOAT is FLOAT64. */
const FLOAT_BITS: Record<string, number> = {
  real: 32, float4: 32, float32: 32,
  // FLOAT is 32 bits in Avro, Java and Spark but 64 in PostgreSQL and BigQuery: judged as 32, so
  // a change from DOUBLE to FLOAT is never waved through.
  float: 32, double: 64, float8: 64, float64: 64, "double precision": 64,
};

const DECIMALS = new Set(["decimal", "numeric", "number", "bignumeric", "bigdecimal", "dec"]);
const STRINGS = new Set(["string", "text", "varchar", "char", "character", "nvarchar", "nchar", "character varying", "varchar2", "clob", "citext"]);
const BINARIES = new Set(["bytes", "binary", "varbinary", "blob", "bytea"]);

interface Physical {
  base: string;
  args: number[];
}

/**
 * Patterns over text whose white space is already collapsed to single spaces and trimmed, so that
 * no two parts can match the same characters: on request text, overlapping parts (`[a-z ]*?\s*`)
 * backtracked for seconds on a type name padded with spaces.
 */
const SIMPLE = /^([A-Za-z][A-Za-z0-9_]*(?: [A-Za-z0-9_]+)*) ?(?:\( ?([0-9]+(?: ?, ?[0-9]+)*) ?\))?$/;
/** Avro's rendering of a logical type with arguments on its underlying type: `bytes(decimal(10,2))`, `Money(decimal(18,4))`. */
const WRAPPED = /^[A-Za-z_][A-Za-z0-9_.]* ?\( ?([A-Za-z][A-Za-z0-9_]*(?: [A-Za-z0-9_]+)* ?\( ?[0-9]+(?: ?, ?[0-9]+)* ?\)) ?\)$/;
/** Longer text is no type name with arguments: it is compared as it is. */
const MAX_TYPE_TEXT = 200;

/**
 * `VARCHAR(50)` → {base: "varchar", args: [50]}; `NUMERIC(10, 2)` → {base: "numeric", args: [10, 2]};
 * `bytes(decimal(10,2))` → {base: "decimal", args: [10, 2]}: the logical type decides what fits, not
 * the bytes (or fixed) that carry it.
 */
export function parsePhysical(text: string): Physical {
  const plain = text.trim().toLowerCase();
  if (plain.length > MAX_TYPE_TEXT) return { base: plain, args: [] };
  const collapsed = plain.replace(/\s+/g, " ");
  const wrapped = WRAPPED.exec(collapsed);
  const match = SIMPLE.exec(wrapped ? wrapped[1] : collapsed);
  if (!match) return { base: plain, args: [] };
  return { base: match[1], args: match[2] ? match[2].split(",").map((n) => Number(n.trim())) : [] };
}

/** Upper bound on length a string or binary type allows; Infinity when unbounded. */
function lengthBound(p: Physical): number {
  return p.args.length > 0 ? p.args[0] : Infinity;
}

function compareRank(before: number, after: number): TypeVerdict {
  if (after === before) return "respelled";
  return after > before ? "widened" : "incompatible";
}

/** Decimal (p, s) → (p', s'): widens when neither the integer digits nor the scale shrink. */
function compareDecimal(before: Physical, after: Physical): TypeVerdict {
  const [p1 = Infinity, s1 = 0] = before.args;
  const [p2 = Infinity, s2 = 0] = after.args;
  if (p1 === p2 && s1 === s2) return "respelled";
  return s2 >= s1 && p2 - s2 >= p1 - s1 ? "widened" : "incompatible";
}

/** Avro-style union text (`["null","string"]`): its branches, or undefined when it is not one. */
function unionBranches(text: string): string[] | undefined {
  if (!text.trim().startsWith("[")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return undefined;
    return value.map((branch) => (typeof branch === "string" ? branch : JSON.stringify(branch)));
  } catch {
    return undefined;
  }
}

function comparePhysical(logical: string, beforeText: string, afterText: string): TypeVerdict {
  if (beforeText === afterText) return "same";
  const before = parsePhysical(beforeText);
  const after = parsePhysical(afterText);
  if (before.base === after.base && before.args.join() === after.args.join()) return "respelled";

  // Unions (Avro): a "null" branch is the field's nullability, which `required` reports; compare
  // what is left, one type against one type, or branch sets (a superset widens).
  const unionBefore = unionBranches(beforeText);
  const unionAfter = unionBranches(afterText);
  if (unionBefore || unionAfter) {
    const b = (unionBefore ?? [beforeText]).filter((t) => t !== '"null"' && t !== "null");
    const a = (unionAfter ?? [afterText]).filter((t) => t !== '"null"' && t !== "null");
    if (b.length === 1 && a.length === 1) return b[0] === a[0] ? "same" : comparePhysical(logical, b[0], a[0]);
    if (!b.every((t) => a.includes(t))) return "incompatible";
    return b.length === a.length ? "same" : "widened";
  }

  // BigQuery spells one type INTEGER or INT64; elsewhere INTEGER is 32 bits. Between those two
  // spellings, assume the alias rather than a narrowing.
  if (new Set([before.base, after.base, "integer", "int64"]).size === 2) return "respelled";
  if (new Set([before.base, after.base, "float", "float64"]).size === 2) return "respelled";

  const intBefore = INTEGER_BITS[before.base];
  const intAfter = INTEGER_BITS[after.base];
  const floatBefore = FLOAT_BITS[before.base];
  const floatAfter = FLOAT_BITS[after.base];
  if (intBefore !== undefined && intAfter !== undefined) return compareRank(intBefore, intAfter);
  if (floatBefore !== undefined && floatAfter !== undefined) return compareRank(floatBefore, floatAfter);
  // Any integer fits a double (as Avro's promotion rules allow); a 32-bit integer fits a float too.
  if (intBefore !== undefined && floatAfter !== undefined) return intBefore <= 32 || floatAfter === 64 ? "widened" : "incompatible";
  if (DECIMALS.has(before.base) && DECIMALS.has(after.base)) return compareDecimal(before, after);
  if (intBefore !== undefined && DECIMALS.has(after.base)) {
    const [p = Infinity, s = 0] = after.args;
    return p - s >= Math.ceil((intBefore * Math.log10(2)) + 1) ? "widened" : "incompatible";
  }
  if ((floatBefore !== undefined || DECIMALS.has(before.base)) && (intAfter !== undefined || floatAfter !== undefined || DECIMALS.has(after.base))) {
    return "incompatible";
  }
  const stringLike = (p: Physical) => STRINGS.has(p.base) || BINARIES.has(p.base);
  if (stringLike(before) && stringLike(after) && STRINGS.has(before.base) === STRINGS.has(after.base)) {
    return compareRank(lengthBound(before), lengthBound(after)) === "incompatible" ? "incompatible" : lengthBound(before) === lengthBound(after) ? "respelled" : "widened";
  }
  // Timestamps: the same family with more fractional digits widens; another family (with or
  // without time zone, DATETIME vs TIMESTAMP) changes what a value means.
  if (logical === "timestamp" || logical === "time") {
    if (before.base !== after.base) return "incompatible";
    return compareRank(before.args[0] ?? 0, after.args[0] ?? 0);
  }
  // Physical names Steward does not know, under the same logical type: say what changed, and let
  // the logical type (which did not change) decide.
  return "respelled";
}

/** The verdict for a field whose logical and physical types may both have changed. */
export function compareTypes(before: { type: string; physicalType: string }, after: { type: string; physicalType: string }): TypeVerdict {
  if (before.type === after.type) return comparePhysical(before.type, before.physicalType, after.physicalType);
  if ((LOGICAL_WIDENING[before.type] ?? []).includes(after.type)) {
    const physical = comparePhysical(after.type, before.physicalType, after.physicalType);
    return physical === "incompatible" ? "incompatible" : "widened";
  }
  return "incompatible";
}
