import { defineConfig } from "vitest/config";

/**
 * The conformance suite: Steward held against the official standard schemas and the reference
 * product's OpenAPI description, read from STANDARDS_DIR (default ../shared/standards). It fails
 * at once, naming the folder, when they are missing.
 */
export default defineConfig({
  test: {
    include: ["src/**/*.conformance.test.ts", "test/**/*.conformance.test.ts"],
    globalSetup: ["./test/conformance/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/tail-reporter.ts"],
  },
});
