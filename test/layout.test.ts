/**
 * The floor plan stays true (docs/product.md §16): the README's layout section names every folder
 * of `src/`, and imports run one way, from lower layers to higher ones only:
 *
 *   platform ← formats ← events ← policies ← modules ← app ← server ← cli
 *
 * with the consumer library and the connectors beside them: they depend on platform and formats
 * (and the connectors on the consumer), and only the CLI depends on them.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const SRC = join(ROOT, "src");

/** Each top-level entry of `src/` and the layer it belongs to. */
const LAYERS: Record<string, string> = {
  platform: "platform",
  workers: "platform",
  metrics: "platform",
  formats: "formats",
  "schema-formats": "formats",
  "contract-formats": "formats",
  "product-formats": "formats",
  "contract-changes": "formats",
  "contract-view": "formats",
  privileges: "formats",
  events: "events",
  policies: "policies",
  modules: "modules",
  notifications: "modules",
  webapp: "app",
  mcp: "app",
  identity: "modules",
  scim: "modules",
  "app.ts": "app",
  "services.ts": "app",
  "server.ts": "server",
  "first-start.ts": "server",
  cli: "cli",
  consumer: "consumer",
  connectors: "connectors",
};

const ORDER = ["platform", "formats", "events", "policies", "modules", "app", "server", "cli"];

/** Which layers each layer may import from. */
function mayImport(from: string, to: string): boolean {
  if (from === to) return true;
  if (from === "consumer") return ["platform", "formats"].includes(to);
  if (from === "connectors") return ["platform", "formats", "consumer"].includes(to);
  if (to === "consumer" || to === "connectors") return from === "cli";
  return ORDER.indexOf(to) < ORDER.indexOf(from);
}

/**
 * The few imports that run against the order, each with its reason. Keep this list short: an
 * entry is a debt, not a permission.
 */
const EXCEPTIONS: Record<string, string> = {
  // The worker pool runs the schema parsers' tasks off the main thread.
  "src/workers/tasks.ts -> src/schema-formats/index.ts": "worker tasks are the parsers",
  "src/workers/tasks.ts -> src/schema-formats/limits.ts": "worker tasks are the parsers",
  "src/workers/tasks.ts -> src/schema-formats/types.ts": "worker tasks are the parsers",
  // The authorization of access transitions reads the lifecycle rules table.
  "src/policies/access.ts -> src/modules/access/lifecycle.ts": "lifecycle rules table",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

function layerOf(path: string): string | undefined {
  return LAYERS[relative(SRC, path).split("/")[0]];
}

/** Relative imports and re-exports of one file, static and dynamic, as absolute `.ts` paths. */
function importsOf(path: string): string[] {
  const text = readFileSync(path, "utf8");
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;"']*?from\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g)].map((m) => m[1] ?? m[2]);
  return specifiers.map((s) => resolve(dirname(path), s).replace(/\.js$/, ".ts"));
}

describe("the floor plan", () => {
  it("gives every folder and file at the top of src/ a layer", () => {
    const unplaced = readdirSync(SRC).filter((name) => !name.endsWith(".test.ts") && LAYERS[name] === undefined);
    expect(unplaced, "add each new top-level entry of src/ to LAYERS (and to the README)").toEqual([]);
  });

  it("names every folder of src/ in the README's layout section", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## How the code is laid out"));
    const folders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (!statSync(path).isDirectory()) continue;
        folders.push(relative(ROOT, path));
        walk(path);
      }
    };
    walk(SRC);
    const named = (folder: string) => section.includes(`\`${folder}/\``) || section.includes(`\`${folder}\``);
    expect(folders.filter((folder) => !named(folder)), "name each folder of src/ in the README's layout section, as `src/…/`").toEqual([]);
  });

  it("keeps imports running one way, from lower layers to higher ones", () => {
    const wrong: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = layerOf(file);
      for (const target of importsOf(file)) {
        if (!target.startsWith(SRC)) continue;
        const to = layerOf(target);
        if (from === undefined || to === undefined || mayImport(from, to)) continue;
        const edge = `${relative(ROOT, file)} -> ${relative(ROOT, target)}`;
        if (!(edge in EXCEPTIONS)) wrong.push(`${edge} (${from} imports ${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("keeps the owner rule and format detection free of imports, so the web app and the connectors read documents as the server does", () => {
    const text = readFileSync(join(SRC, "formats/documents.ts"), "utf8");
    const imports = [...text.matchAll(/^\s*(?:import|export)\b(?!\s+type\b)[^;]*?\bfrom\s*["']([^"']+)["']/gm)].map((m) => m[1]);
    expect(imports).toEqual([]);
  });

  it("makes every problem of a fixed status through its named constructor in src/platform/errors.ts", () => {
    const adHoc = sourceFiles(SRC)
      .filter((file) => !file.endsWith("platform/errors.ts"))
      .flatMap((file) => [...readFileSync(file, "utf8").matchAll(/new Problem\(\s*\d{3}\b/g)].map(() => relative(ROOT, file)));
    expect(adHoc, "use badRequest, missing, tooLarge … of src/platform/errors.ts").toEqual([]);
  });

  it("keeps pages of the web app from importing other pages: what two pages show lives in web/src/components/", () => {
    const pages = join(ROOT, "web/src/pages");
    const edges = readdirSync(pages)
      .filter((name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name))
      .flatMap((name) => importsOf(join(pages, name)).filter((target) => dirname(target) === pages).map((target) => `${name} -> ${relative(pages, target).replace(/\.ts$/, ".tsx")}`));
    expect(edges).toEqual([]);
  });

  it("keeps the web app's shared parts from importing pages: web/src/components/ is what pages build on", () => {
    const components = join(ROOT, "web/src/components");
    const pages = join(ROOT, "web/src/pages");
    const edges = readdirSync(components)
      .filter((name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name))
      .flatMap((name) => importsOf(join(components, name)).filter((target) => dirname(target) === pages).map((target) => `${name} -> ${relative(pages, target)}`));
    expect(edges).toEqual([]);
  });

  it("shows a resource's details one way in the web app: Facts and Fact of web/src/components/facts.tsx, no hand-written dl, dt or dd", () => {
    const web = join(ROOT, "web/src");
    const facts = join(web, "components/facts.tsx");
    const handWritten = sourceFiles(web)
      .filter((file) => file !== facts)
      .flatMap((file) => [...readFileSync(file, "utf8").matchAll(/<(dl|dt|dd)\b/g)].map((m) => `${relative(ROOT, file)}: <${m[1]}>`));
    expect(handWritten, "use Facts and Fact").toEqual([]);
  });

  it("lists no exception that no longer happens", () => {
    const edges = new Set(sourceFiles(SRC).flatMap((file) => importsOf(file).map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`)));
    expect(Object.keys(EXCEPTIONS).filter((edge) => !edges.has(edge))).toEqual([]);
  });
});
