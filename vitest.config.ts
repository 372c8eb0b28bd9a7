import { defineConfig } from "vitest/config";

export default defineConfig({
  define: { MEDALIST_VERSION: JSON.stringify("0.0.0-test") },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
