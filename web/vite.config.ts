import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The web app: Preact components compiled by esbuild (no framework plugin needed), built into
// dist/web, which the Steward server serves at /.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  logLevel: "warn",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    // Not /assets: that is where the pages of assets are (src/webapp/static.ts, BUILD_DIR).
    assetsDir: "static",
    target: "es2022",
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  server: { proxy: { "/api": "http://127.0.0.1:8080", "/auth": "http://127.0.0.1:8080", "/health": "http://127.0.0.1:8080" } },
});
