import { score } from "../report/format.js";
import { esc } from "./escape.js";
import { LIMIT_REACHED, lineText, preText, type PageBudget } from "./budget.js";
import type { TreeNode } from "./parse.js";
import { LIMITS } from "./read.js";

/** AIDE's solution tree: one collapsible entry per node, charged to the page's budget. */
export function treeHtml(nodes: TreeNode[], budget: PageBudget): string {
  const kids = new Map<string | null, TreeNode[]>();
  const ids = new Set(nodes.map((n) => n.id));
  for (const n of nodes) {
    const p = n.parent !== null && ids.has(n.parent) ? n.parent : null;
    kids.set(p, [...(kids.get(p) ?? []), n]);
  }
  const best = nodes.filter((n) => !n.buggy && n.metric !== null);
  const seen = new Set<string>();
  let hidden = 0;
  const draw = (parent: string | null, depth: number): string => {
    const list = (kids.get(parent) ?? []).filter((n) => !seen.has(n.id));
    if (!list.length || depth > 200) return "";
    return `<ul>${list
      .map((n) => {
        seen.add(n.id);
        if (!budget.row()) {
          hidden++;
          return draw(n.id, depth + 1);
        }
        const badge = n.buggy
          ? `<span class="badge bad">buggy</span>`
          : `<span class="badge good">metric ${esc(n.metric === null ? "—" : score(n.metric))}</span>`;
        return (
          `<li class="node" data-buggy="${n.buggy}"><details><summary>step ${esc(n.step ?? "?")} ${badge} ${lineText(n.plan.split("\n")[0] ?? "", 160, budget)}</summary>` +
          (n.plan ? preText(n.plan, 20_000, budget) : "") +
          (n.code ? preText(n.code, LIMITS.textChars, budget) : "") +
          (n.output ? `<p class="muted">output</p>${preText(n.output, 20_000, budget)}` : "") +
          `</details>${draw(n.id, depth + 1)}</li>`
        );
      })
      .join("")}</ul>`;
  };
  const tree = draw(null, 0);
  const more = hidden
    ? `<p class="muted">${hidden} more node${hidden === 1 ? "" : "s"} not shown: ${esc(LIMIT_REACHED)}; the journal is in the run's artifact.</p>`
    : "";
  return `<p>${nodes.length} nodes · ${nodes.filter((n) => n.buggy).length} buggy · ${best.length} with a metric</p><div class="tree">${tree}</div>${more}`;
}
