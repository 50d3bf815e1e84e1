import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { gzipSync } from "node:zlib";
import type { FastifyReply } from "fastify";
import type { Config } from "../platform/config.js";
import type { App } from "../platform/http/types.js";
import { PAGE_KINDS } from "../platform/http/page-paths.js";

/**
 * Serves the web app built into `config.webDir` (see web/): hashed build files under /static with
 * a year of caching, and index.html for every page the app routes itself. Page paths are listed
 * rather than caught by a wildcard, so unknown paths under /api still answer 404/405 problems.
 * The build files stay clear of the pages: `/assets/<id>` is an asset's page, whatever its id.
 */

/** Where Vite puts the hashed build files (`build.assetsDir` in web/vite.config.ts). */
export const BUILD_DIR = "static";

/** The app's pages: a list and the page of one for every kind that `location-html` headers name. */
export const PAGE_ROUTES = [
  "/",
  "/sign-in",
  "/setup",
  "/invitation",
  ...PAGE_KINDS.flatMap((kind) => [`/${kind}`, `/${kind}/*`]),
  "/activity",
  "/lineage",
  "/notifications",
  "/settings",
  "/settings/*",
];

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  // Setup links carry their token in the query string: never pass it on.
  "referrer-policy": "no-referrer",
};

interface Asset {
  body: Buffer;
  /** Compressed once at start for text assets, served to clients that accept gzip. */
  gzip?: Buffer;
  type: string;
}

function readTree(dir: string): Map<string, Asset> {
  const files = new Map<string, Asset>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const body = readFileSync(full);
        const type = TYPES[extname(name)] ?? "application/octet-stream";
        const gzip = /^(text\/|image\/svg|application\/json)/.test(type) && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined;
        files.set("/" + relative(dir, full).split(sep).join("/"), { body, gzip, type });
      }
    }
  };
  walk(dir);
  return files;
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Steward</title></head>
<body><main><h1>Steward</h1><p>The web app has not been built. Run <code>npm run build</code> (or <code>npm install</code>) and restart.
The API is available under <a href="/api/openapi.yaml">/api</a>.</p></main></body></html>`;

export async function webAppRoutes(app: App, config: Config): Promise<void> {
  const built = existsSync(join(config.webDir, "index.html"));
  const files = built ? readTree(config.webDir) : new Map<string, Asset>();
  const index = files.get("/index.html")?.body ?? Buffer.from(NOT_BUILT);

  const sendIndex = (reply: FastifyReply) =>
    reply.headers(SECURITY_HEADERS).header("cache-control", "no-cache").type("text/html; charset=utf-8").send(index);

  for (const url of PAGE_ROUTES) app.get(url, { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));

  // Hashed build output: never changes under the same name.
  app.get(`/${BUILD_DIR}/*`, { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split("?")[0];
    let asset: Asset | undefined;
    try {
      asset = files.get(decodeURIComponent(path));
    } catch {
      asset = undefined;
    }
    if (!asset) return reply.code(404).type("text/plain; charset=utf-8").send("Not found");
    reply.header("cache-control", "public, max-age=31536000, immutable").header("x-content-type-options", "nosniff").header("vary", "accept-encoding").type(asset.type);
    if (asset.gzip && /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""))) return reply.header("content-encoding", "gzip").send(asset.gzip);
    return reply.send(asset.body);
  });

  // Files at the root of the build (favicon and the like).
  for (const [path, asset] of files) {
    if (path.startsWith(`/${BUILD_DIR}/`) || path === "/index.html") continue;
    app.get(path, { schema: { hide: true } }, async (_request, reply) => reply.header("cache-control", "public, max-age=3600").type(asset.type).send(asset.body));
  }
}
