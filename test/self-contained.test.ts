import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * `npm test` must pass in a fresh clone with nothing beside it. This scans every test file of
 * `npm test` (all `*.test.ts` but the conformance suite's `*.conformance.test.ts`) and every
 * module it imports, directly or not, for a way to read a file outside the repository: the
 * helpers that read the official standards, the standards folder's name or variable, absolute
 * paths into home or work folders, and relative paths that climb out of the repository.
 */
const ROOT = resolve(process.cwd());
const SELF = resolve(ROOT, "test/self-contained.test.ts");

/** Helpers that read STANDARDS_DIR; only the conformance suite may import them. */
const CONFORMANCE_HELPERS = ["test/helpers/standards.ts", "test/helpers/standards-check.ts", "test/helpers/reference.ts", "test/conformance/standards-dir.ts"].map((p) => resolve(ROOT, p));
const FORBIDDEN_TEXT = [/STANDARDS_DIR/, /shared[\\/]standards/, /["'`]\/(?:work|home|root|Users|mnt|srv|opt)\/[\w.-]/];

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });
}

/** The test files `npm test` runs (vitest.config.ts: src and test, without the conformance suite). */
function npmTestFiles(): string[] {
  return ["src", "test"].flatMap((dir) => walk(resolve(ROOT, dir))).filter((f) => f.endsWith(".test.ts") && !f.endsWith(".conformance.test.ts"));
}

/** The repository files a module imports by a relative specifier. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]!);
  return specifiers.flatMap((specifier) => {
    const base = resolve(dirname(file), specifier);
    const candidates = [base, base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx"), `${base}.ts`, join(base, "index.ts")];
    const found = candidates.find((c) => existsSync(c) && /\.tsx?$/.test(c));
    return found ? [found] : [];
  });
}

const outside = (path: string) => {
  const rel = relative(ROOT, path);
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
};

/** What in one module's text could read outside the repository; `file` is where it lives. */
export function outsideReads(file: string, text: string, imports: string[] = []): string[] {
  const problems: string[] = [];
  for (const helper of CONFORMANCE_HELPERS) if (imports.includes(helper)) problems.push(`imports ${relative(ROOT, helper)}`);
  for (const pattern of FORBIDDEN_TEXT) {
    const match = pattern.exec(text);
    if (match) problems.push(`mentions ${match[0]}`);
  }
  // new URL("../…", import.meta.url) is relative to the module.
  for (const m of text.matchAll(/new URL\(\s*["'`]([^"'`]+)["'`]\s*,\s*import\.meta\.url\s*\)/g)) {
    if (outside(resolve(dirname(file), m[1]!))) problems.push(`reads ${m[1]} relative to itself`);
  }
  // Paths given to path and fs functions are relative to the working directory, the repository.
  for (const line of text.split("\n")) {
    if (!/\b(?:resolve|join|readFileSync|readFile|existsSync|readdirSync|statSync|createReadStream)\(/.test(line) || /import\.meta\.url/.test(line)) continue;
    for (const literal of line.matchAll(/["'`](\.\.[\\/][^"'`]*)["'`]/g)) {
      if (outside(resolve(ROOT, literal[1]!))) problems.push(`reads ${literal[1]}`);
    }
  }
  return problems;
}

describe("npm test is self-contained", () => {
  it("recognises each way a test could read the standards beside the repository", () => {
    const file = resolve(ROOT, "test/example.test.ts");
    // Built from its parts, so that this file does not itself name the folder it looks for.
    const beside = ["..", "shared", "standards", "x.json"].join("/");
    expect(outsideReads(file, `readFileSync(resolve(process.cwd(), "${beside}"))`)).toEqual(
      expect.arrayContaining([`mentions ${beside.slice(3, -7)}`, `reads ${beside}`]),
    );
    expect(outsideReads(file, "const dir = process.env.STANDARDS_DIR;")).toEqual(["mentions STANDARDS_DIR"]);
    expect(outsideReads(file, 'readFileSync("/work/data/x.yaml")')).toEqual(['mentions "/work/d']);
    expect(outsideReads(file, 'new URL("../../other/x.json", import.meta.url)')).toEqual(["reads ../../other/x.json relative to itself"]);
    expect(outsideReads(file, "", [resolve(ROOT, "test/helpers/reference.ts")])).toEqual(["imports test/helpers/reference.ts"]);
    // Inside the repository, and ids that only look like paths, are fine.
    expect(outsideReads(file, 'new URL("../fixtures/a.json", import.meta.url); resolve("test/fixtures"); roleFor({ team: "../admin" })')).toEqual([]);
    // A SCIM resource path is no home folder.
    expect(outsideReads(file, "scim(\"GET\", `/Users/${id}`)")).toEqual([]);
    expect(outsideReads(file, 'readFileSync("/Users/alice/x.json")')).toEqual(['mentions "/Users/a']);
  });

  it("no test of npm test, nor any module it imports, reads a path outside the repository", () => {
    const seen = new Set<string>();
    const queue = npmTestFiles().filter((f) => f !== SELF);
    expect(queue.length).toBeGreaterThan(50);
    const problems: string[] = [];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      const imports = importsOf(file, text);
      for (const problem of outsideReads(file, text, imports)) problems.push(`${relative(ROOT, file)}: ${problem}`);
      queue.push(...imports.filter((i) => !seen.has(i) && !CONFORMANCE_HELPERS.includes(i)));
    }
    expect(problems).toEqual([]);
  });
});
