import { readFileSync } from "node:fs";
import { join } from "node:path";
import { marked } from "marked";

const NM = join(process.cwd(), "node_modules");

/** A PR comment's Markdown as GitHub shows it: GFM by marked, GitHub's CSS, mermaid blocks marked for rendering. */
export function commentHtml(markdown: string, width = 1000): string {
  const css = readFileSync(join(NM, "github-markdown-css", "github-markdown-light.css"), "utf8");
  const body = (marked.parse(markdown, { gfm: true, async: false }) as string).replace(
    /<pre><code class="language-mermaid">([\s\S]*?)<\/code><\/pre>/g,
    '<pre class="mermaid">$1</pre>',
  );
  return `<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head>
<body style="margin:0;padding:16px;background:#fff"><article class="markdown-body" style="width:${width}px">${body}</article></body></html>`;
}

export const MERMAID_JS = join(NM, "mermaid", "dist", "mermaid.min.js");
