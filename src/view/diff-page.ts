import { diffLines, hunks, splitLines } from "./diff.js";
import { esc } from "./escape.js";
import { LIMIT_REACHED, lineText, PageBudget } from "./budget.js";
import { page } from "./layout.js";
import type { RunData } from "./model.js";
import { medalText, pairMark } from "./pages.js";
import { LIMITS } from "./read.js";

/** The base→head diff of the final code (code/) of one competition and seed. */
export function renderDiff(base: RunData, head: RunData): string {
  const r = head.result;
  const codeOf = (run: RunData) =>
    new Map(run.files.filter((f) => f.kind === "file" && f.path.startsWith("code/")).map((f) => [f.path, f]));
  const bc = codeOf(base);
  const hc = codeOf(head);
  const paths = [...new Set([...bc.keys(), ...hc.keys()])].sort();
  const budget = new PageBudget(LIMITS.pageBytes);
  let unshown = 0;
  const parts: string[] = [];
  parts.push(`<h1>${esc(r.competitionId)} · seed ${esc(r.seed)} · code base → head</h1>`);
  parts.push(
    `<p><a href="../${esc(base.page)}">base run</a> (${esc(medalText(base.result))}) → <a href="../${esc(head.page)}">head run</a> (${esc(medalText(head.result))}) · ${pairMark(base.result, head.result)}</p>`,
  );
  if (!paths.length) parts.push(`<p class="muted">Neither run left files in code/.</p>`);
  let same = 0;
  for (const p of paths) {
    if (!budget.row()) {
      unshown++;
      continue;
    }
    const a = bc.has(p) ? base.texts[p] : undefined;
    const b = hc.has(p) ? head.texts[p] : undefined;
    const status = !bc.has(p) ? "added" : !hc.has(p) ? "removed" : "changed";
    if ((bc.has(p) && !a) || (hc.has(p) && !b) || a?.truncated || b?.truncated) {
      parts.push(
        `<h2 class="mono">${esc(p)} <span class="muted">${status}</span></h2><p class="muted">Binary or larger than the size limit: not diffed.</p>`,
      );
      continue;
    }
    if (a && b && a.text === b.text) {
      same++;
      continue;
    }
    const lines = diffLines(splitLines(a?.text ?? ""), splitLines(b?.text ?? ""));
    parts.push(`<h2 class="mono">${lineText(p, 300, budget)} <span class="muted">${status}</span></h2>`);
    if (!lines) {
      parts.push(`<p class="muted">Too many differences to show.</p>`);
      continue;
    }
    const add = lines.filter((l) => l.kind === "+").length;
    const del = lines.filter((l) => l.kind === "-").length;
    parts.push(`<p><span class="good">+${add}</span> <span class="bad">−${del}</span></p><div class="diff">`);
    for (const h of hunks(lines)) {
      const html = budget.html(
        `<div class="hunk">@@ −${h.aStart} +${h.bStart} @@</div>` +
          h.lines
            .map(
              (l) =>
                `<div class="${l.kind === "+" ? "add" : l.kind === "-" ? "del" : "ctx"}">${esc(l.kind)} ${esc(l.text)}</div>`,
            )
            .join(""),
      );
      if (!html) {
        parts.push(`<p class="muted">The rest of this diff is not shown: ${esc(LIMIT_REACHED)}.</p>`);
        break;
      }
      parts.push(html);
    }
    parts.push(`</div>`);
  }
  if (same) parts.push(`<p class="muted">${same} file${same === 1 ? "" : "s"} unchanged.</p>`);
  if (unshown)
    parts.push(
      `<p class="muted">${unshown} more file${unshown === 1 ? "" : "s"} not diffed: ${esc(LIMIT_REACHED)}.</p>`,
    );
  return page(`${r.competitionId} · seed ${r.seed} · code diff`, parts.join("\n"), { home: "../index.html" });
}
