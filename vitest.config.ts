import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Tests that read the official standards from outside the repository run in
    // `npm run test:conformance` (vitest.conformance.config.ts), never in `npm test`.
    exclude: ["**/node_modules/**", "**/*.conformance.test.ts"],
    // The build the browser and process tests run, brought up to date once (test/helpers/build-setup.ts).
    globalSetup: ["./test/helpers/build-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Child-process and database tests are heavier than pure ones; two cores is the CI machine.
    pool: "forks",
    maxWorkers: 2,
    // The tail reporter repeats each failure in a line after the summary, where a CI log ends.
    reporters: ["default", "./test/helpers/tail-reporter.ts"],
  },
});
