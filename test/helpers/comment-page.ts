import { readFileSync } from "node:fs";
import { join } from "node:path";
import { marked } from "marked";
import type { Page } from "playwright-core";

const NM = join(process.cwd(), "node_modules");

export type Theme = "light" | "dark";

/** GitHub's page background in each theme (github-markdown-css). */
export const BACKGROUND: Record<Theme, string> = { light: "#ffffff", dark: "#0d1117" };

/** A PR comment's Markdown as GitHub shows it: GFM by marked, GitHub's CSS, mermaid blocks marked for rendering. */
export function commentHtml(markdown: string, width = 1000, theme: Theme = "light"): string {
  const css = readFileSync(join(NM, "github-markdown-css", `github-markdown-${theme}.css`), "utf8");
  const body = (marked.parse(markdown, { gfm: true, async: false }) as string).replace(
    /<pre><code class="language-mermaid">([\s\S]*?)<\/code><\/pre>/g,
    '<pre class="mermaid">$1</pre>',
  );
  return `<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head>
<body style="margin:0;padding:16px;background:${BACKGROUND[theme]}"><article class="markdown-body" style="width:${width}px">${body}</article></body></html>`;
}

export const MERMAID_JS = join(NM, "mermaid", "dist", "mermaid.min.js");

/** Loads the comment into `page` and renders its mermaid blocks with the theme GitHub uses for it. */
export async function showComment(page: Page, markdown: string, theme: Theme = "light"): Promise<void> {
  await page.setContent(commentHtml(markdown, 1000, theme));
  await page.addScriptTag({ path: MERMAID_JS });
  await page.evaluate(
    async (mermaidTheme) => {
      const m = (
        globalThis as unknown as { mermaid: { initialize(o: object): void; run(o: object): Promise<void> } }
      ).mermaid;
      m.initialize({ startOnLoad: false, theme: mermaidTheme });
      await m.run({ querySelector: "pre.mermaid" });
    },
    theme === "dark" ? "dark" : "default",
  );
}
