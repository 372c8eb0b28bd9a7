// Registers an OCI runtime in a Docker daemon.json, keeping every other key.
// usage: node scripts/docker-runtime-json.mjs FILE NAME PATH [RUNTIME_ARG ...]
// Exit 0 when FILE was written (created or changed), 1 when it already said exactly this, 2 on error
// (FILE is not a JSON object, or its "runtimes" is not one). Writes a temporary file, then renames it.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

const [file, name, runtimePath, ...args] = process.argv.slice(2);
if (!file || !name || !runtimePath) {
  console.error("usage: node scripts/docker-runtime-json.mjs FILE NAME PATH [RUNTIME_ARG ...]");
  process.exit(2);
}
let config = {};
if (existsSync(file)) {
  const text = readFileSync(file, "utf8");
  if (text.trim()) {
    try {
      config = JSON.parse(text);
    } catch (e) {
      console.error(`${file} is not valid JSON (${e.message}); not changing it`);
      process.exit(2);
    }
  }
}
if (config === null || typeof config !== "object" || Array.isArray(config)) {
  console.error(`${file} is not a JSON object; not changing it`);
  process.exit(2);
}
config.runtimes ??= {};
const runtimes = config.runtimes;
if (runtimes === null || typeof runtimes !== "object" || Array.isArray(runtimes)) {
  console.error(`${file}: "runtimes" is not an object; not changing it`);
  process.exit(2);
}
const entry = args.length > 0 ? { path: runtimePath, runtimeArgs: args } : { path: runtimePath };
if (JSON.stringify(runtimes[name]) === JSON.stringify(entry)) process.exit(1);
runtimes[name] = entry;
mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
const tmp = `${file}.medalist-tmp`;
writeFileSync(tmp, JSON.stringify(config, null, 2) + "\n");
renameSync(tmp, file);
