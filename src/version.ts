import { readFileSync } from "node:fs";

declare const MEDALIST_VERSION: string | undefined;

/** package.json's version, read beside src/ when running from source (tsx). */
function sourceVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** The one version: package.json's, baked in by the bundler (scripts/build.mjs) or read from source. */
export const VERSION: string = typeof MEDALIST_VERSION === "string" ? MEDALIST_VERSION : sourceVersion();
