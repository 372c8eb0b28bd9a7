import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import type { Competition } from "../registry/schema.js";

/** Where upstream keeps each competition's description.md (fetched by `medalist prepare`). */
export const UPSTREAM_DESCRIPTIONS =
  "https://raw.githubusercontent.com/openai/mle-bench/main/mlebench/competitions";

export function descriptionStub(c: Competition): string {
  return (
    `# ${c.name}\n\nKaggle competition \`${c.id}\`: https://www.kaggle.com/competitions/${c.id}/overview\n\n` +
    "(Prepared by Medalist without upstream MLE-bench's description.md.)\n"
  );
}

/**
 * Writes public/description.md: upstream's file when it can be fetched from `baseUrl` and its MD5
 * matches the pin (so the agent sees exactly what MLE-bench shows), else a short stub.
 */
export async function writeDescription(
  c: Competition,
  file: string,
  baseUrl: string | undefined,
  log: (line: string) => void,
): Promise<"upstream" | "stub"> {
  const md5 = c.prepare?.descriptionMd5;
  if (baseUrl && md5) {
    const url = `${baseUrl.replace(/\/+$/, "")}/${encodeURIComponent(c.id)}/description.md`;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(20_000) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = Buffer.from(await res.arrayBuffer());
      const got = createHash("md5").update(body).digest("hex");
      if (got !== md5) throw new Error(`MD5 ${got} differs from the pinned ${md5}`);
      writeFileSync(file, body);
      return "upstream";
    } catch (e) {
      log(`${c.id}: warning: upstream description.md not used (${(e as Error).message}); writing a stub`);
    }
  }
  writeFileSync(file, descriptionStub(c));
  return "stub";
}
