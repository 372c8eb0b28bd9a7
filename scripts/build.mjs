// Bundles the action (dist/index.js) and the CLI (dist/cli.js) as ESM for Node 20+.
import { build } from "esbuild";
import { chmodSync, readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  legalComments: "none",
  // Same output whether node_modules is a folder or a link (as in a temporary worktree).
  preserveSymlinks: true,
  logLevel: "warning",
  external: ["cpu-features", "*.node"],
  define: { MEDALIST_VERSION: JSON.stringify(pkg.version) },
  banner: {
    // require, __filename and __dirname for bundled CommonJS (dockerode's ssh2 reads __dirname at load).
    js:
      "import { createRequire as __medalistRequire } from 'node:module'; import { fileURLToPath as __medalistPath } from 'node:url'; import { dirname as __medalistDir } from 'node:path'; " +
      "const require = __medalistRequire(import.meta.url); const __filename = __medalistPath(import.meta.url); const __dirname = __medalistDir(__filename);",
  },
};
await build({ ...common, entryPoints: ["src/index.ts"], outfile: "dist/index.js" });
await build({
  ...common,
  entryPoints: ["src/cli.ts"],
  outfile: "dist/cli.js",
  banner: { js: "#!/usr/bin/env node\n" + common.banner.js },
});
chmodSync("dist/cli.js", 0o755);
