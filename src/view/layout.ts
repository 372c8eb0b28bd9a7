import { esc } from "./escape.js";

/**
 * The page shell shared by every page of the viewer: inline CSS, a strict Content-Security-Policy
 * (no request can leave the page: no connect, no remote image, no remote script), no CDN.
 */
const CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
  "connect-src 'none'; base-uri 'none'; form-action 'none'; frame-src 'none'; object-src 'none'";

const CSS = `
*{box-sizing:border-box}
body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#1f2328;background:#fff}
header{background:#24292f;color:#fff;padding:10px 20px}
header a{color:#9cd0ff}
main{padding:12px 20px;max-width:1240px;overflow-wrap:anywhere}
h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:22px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
table{border-collapse:collapse;margin:6px 0}
td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.tablebox{overflow-x:auto;max-width:100%}
table.competitions{width:100%;table-layout:fixed}
table.competitions th{font-weight:600;overflow-wrap:normal}
.c-name{width:21%}.c-side{width:17%}.c-pct{width:10%}.c-why{width:25%}.c-diff{width:10%}
table.single .c-side{width:30%}table.single .c-why{width:39%}
.chip{display:inline-block;white-space:nowrap;padding:0 5px;margin:1px 0;border-radius:8px;border:1px solid #d0d7de;font-size:12px;color:#1f2328;text-decoration:none}
a.chip:hover{text-decoration:underline}
.chip.gold{background:#fff8c5;border-color:#d4a72c}.chip.silver{background:#eaeef2;border-color:#8c959f}
.chip.bronze{background:#fbefe3;border-color:#c4793a}.chip.failed{background:#ffebe9;border-color:#ff8182}
ul.causes{margin:0;padding-left:16px}
.verdict{border:1px solid #d0d7de;border-left-width:6px;border-radius:6px;padding:4px 14px;margin:8px 0}
.verdict p{margin:6px 0}.verdict-line{font-size:16px}#verdict-word{font-size:20px}
.v-regressed,.v-error{border-left-color:#cf222e}.v-no-regression{border-left-color:#1a7f37}
.v-inconclusive{border-left-color:#9a6700}.v-none{border-left-color:#8c959f}
#controls{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;margin:6px 0}
#controls fieldset{border:1px solid #d0d7de;padding:2px 8px;margin:0}
#controls legend{font-size:12px;color:#59636e}
#controls[hidden],[hidden]{display:none}
nav.runnav{display:flex;flex-wrap:wrap;gap:4px 16px;margin:4px 0}
.cause{border:1px solid #d0d7de;border-left:6px solid #8c959f;border-radius:6px;padding:6px 12px;margin:8px 0;font-size:15px}
.cause.bad{border-left-color:#cf222e;background:#fff8f8}.cause.good{border-left-color:#1a7f37}
svg.chart{max-width:100%;height:auto}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.nowrap td,table.nowrap th{white-space:nowrap;overflow-wrap:normal}
pre,code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:480px;white-space:pre-wrap;word-break:break-all}
.good{color:#1a7f37}.bad{color:#cf222e}.muted{color:#59636e}
.badge{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;border:1px solid #d0d7de}
.badge.bad{background:#ffebe9;border-color:#ff8182}.badge.good{background:#dafbe1;border-color:#4ac26b}
.medal.gold{color:#bf8700}.medal.silver{color:#8c959f}.medal.bronze{color:#a0522d}
.cards{display:flex;flex-wrap:wrap;gap:8px}
.card{border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;min-width:120px}
.card b{display:block;font-size:18px}
.tree ul{list-style:none;padding-left:18px;border-left:1px dashed #d0d7de;margin:0}
.tree>ul{border:0;padding:0}
.tree li{margin:2px 0}
.log{border:1px solid #d0d7de;max-height:600px;overflow:auto}
.log div{white-space:pre-wrap;word-break:break-all;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;padding:0 6px}
.log .t{color:#59636e;margin-right:8px}.log .stderr{background:#fff5f5}.log .medalist{background:#f0f6ff}
.log .hit{background:#fff8c5}
.diff .del{background:#ffebe9}.diff .add{background:#dafbe1}.diff .hunk{color:#59636e;background:#f6f8fa}
.diff div{white-space:pre-wrap;word-break:break-all;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
input[type=search]{padding:4px 8px;width:280px;max-width:100%}
`;

export function page(title: string, body: string, opts: { home?: string; script?: string } = {}): string {
  const nav = opts.home ? ` · <a href="${esc(opts.home)}">all runs</a>` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body><header><b>Medalist</b> · ${esc(title)}${nav}</header><main>
${body}
</main>${opts.script ? `<script>${opts.script}</script>` : ""}</body></html>
`;
}
