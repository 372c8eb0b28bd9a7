declare const MEDALIST_VERSION: string | undefined;

/** Version baked in by the bundler; falls back for tsx/vitest runs. */
export const VERSION: string = typeof MEDALIST_VERSION === "string" ? MEDALIST_VERSION : "0.0.0-dev";
