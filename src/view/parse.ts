import { z } from "zod";
import { parseLogLine } from "../execute/run-log.js";
import { parseCsv } from "../prepare/csv.js";

/** Parsers for what an agent leaves in logs/: all lenient (bad lines are counted, never thrown). */

export interface MetricPoint {
  /** Step index, or seconds since the first point when only times are given. */
  x: number;
  value: number;
  name: string;
}

export interface Metrics {
  points: MetricPoint[];
  xLabel: string;
  badLines: number;
}

const MetricLine = z.object({
  value: z.number().optional(),
  score: z.number().optional(),
  metric: z.union([z.string(), z.number()]).optional(),
  name: z.string().optional(),
  step: z.number().optional(),
  time: z.union([z.string(), z.number()]).optional(),
  timestamp: z.union([z.string(), z.number()]).optional(),
});

/**
 * logs/metrics.jsonl: one JSON object a line, e.g. {"step": 3, "value": 0.81, "name": "val_auc"}
 * ("score" or a numeric "metric" stand for "value"; "time"/"timestamp" for the x axis when no step).
 */
export function parseMetrics(text: string, maxPoints = 10_000): Metrics {
  const points: MetricPoint[] = [];
  let bad = 0;
  let useTime = false;
  const raw: { step?: number; t?: number; value: number; name: string }[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    if (raw.length >= maxPoints) break;
    let parsed;
    try {
      parsed = MetricLine.safeParse(JSON.parse(line));
    } catch {
      bad++;
      continue;
    }
    if (!parsed.success) {
      bad++;
      continue;
    }
    const d = parsed.data;
    const value = d.value ?? d.score ?? (typeof d.metric === "number" ? d.metric : undefined);
    if (value === undefined || !Number.isFinite(value)) {
      bad++;
      continue;
    }
    const when = d.time ?? d.timestamp;
    const t = typeof when === "number" ? when : when === undefined ? undefined : Date.parse(when) / 1000;
    raw.push({
      step: d.step,
      t: t !== undefined && Number.isFinite(t) ? t : undefined,
      value,
      name: d.name ?? (typeof d.metric === "string" ? d.metric : "metric"),
    });
  }
  if (raw.some((r) => r.step === undefined) && raw.every((r) => r.t !== undefined)) useTime = true;
  const t0 = useTime ? Math.min(...raw.map((r) => r.t!)) : 0;
  raw.forEach((r, i) =>
    points.push({ x: useTime ? r.t! - t0 : (r.step ?? i), value: r.value, name: r.name }),
  );
  return { points, xLabel: useTime ? "seconds since the first point" : "step", badLines: bad };
}

/** The last `count` stderr lines of a log (or the last lines when none is marked stderr). */
export function lastErrorLines(log: string, count = 12): string[] {
  const lines = log.split("\n").filter((l) => l.length > 0);
  const tail = lines.slice(-5000).map((l, i) => parseLogLine(l, i));
  const err = tail.filter((l) => l.stream === "stderr" || l.stream === "medalist");
  return (err.length ? err : tail).slice(-count).map((l) => (l.stream ? `${l.stream}: ${l.text}` : l.text));
}

export interface TreeNode {
  id: string;
  parent: string | null;
  step: number | null;
  metric: number | null;
  buggy: boolean;
  plan: string;
  code: string;
  output: string;
}

const AideNode = z
  .object({
    id: z.union([z.string(), z.number()]),
    step: z.number().nullable().optional(),
    parent: z
      .union([z.string(), z.number(), z.object({ id: z.union([z.string(), z.number()]) })])
      .nullable()
      .optional(),
    parent_id: z.union([z.string(), z.number()]).nullable().optional(),
    metric: z
      .union([z.number(), z.object({ value: z.number().nullable().optional() }).passthrough()])
      .nullable()
      .optional(),
    is_buggy: z.boolean().nullable().optional(),
    plan: z.string().nullable().optional(),
    code: z.string().nullable().optional(),
    term_out: z
      .union([z.string(), z.array(z.string())])
      .nullable()
      .optional(),
    analysis: z.string().nullable().optional(),
  })
  .passthrough();

const AideJournal = z.object({
  nodes: z.array(AideNode),
  node2parent: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});

/** AIDE's journal.json (nodes with metric and is_buggy; parents in node2parent or on each node). */
export function parseAideJournal(json: unknown, maxNodes = 2000): TreeNode[] | null {
  const parsed = AideJournal.safeParse(json);
  if (!parsed.success || parsed.data.nodes.length === 0) return null;
  const links = parsed.data.node2parent ?? {};
  return parsed.data.nodes.slice(0, maxNodes).map((n) => {
    const id = String(n.id);
    const p = n.parent_id ?? (typeof n.parent === "object" && n.parent ? n.parent.id : n.parent) ?? links[id];
    const metric = typeof n.metric === "number" ? n.metric : (n.metric?.value ?? null);
    const out = Array.isArray(n.term_out) ? n.term_out.join("") : (n.term_out ?? "");
    return {
      id,
      parent: p === undefined || p === null ? null : String(p),
      step: n.step ?? null,
      metric: metric !== null && Number.isFinite(metric) ? metric : null,
      buggy: n.is_buggy === true,
      plan: n.plan ?? n.analysis ?? "",
      code: n.code ?? "",
      output: out,
    };
  });
}

export interface TrajectoryEvent {
  id: string;
  time: string;
  source: string;
  kind: string;
  text: string;
  detail: string;
}

const OhEvent = z
  .object({
    id: z.union([z.string(), z.number()]).optional(),
    timestamp: z.string().optional(),
    source: z.string(),
    action: z.string().optional(),
    observation: z.string().optional(),
    message: z.string().optional(),
    content: z.string().optional(),
    args: z.record(z.string(), z.unknown()).optional(),
    thought: z.string().optional(),
  })
  .passthrough()
  .refine((e) => e.action !== undefined || e.observation !== undefined);

/** An OpenHands-style event list: [{source, action | observation, message, args, content}]. */
export function parseEvents(json: unknown, maxEvents = 5000): TrajectoryEvent[] | null {
  const list = Array.isArray(json)
    ? json
    : json && typeof json === "object" && Array.isArray((json as { history?: unknown }).history)
      ? (json as { history: unknown[] }).history
      : null;
  if (!list || list.length === 0) return null;
  const events: TrajectoryEvent[] = [];
  for (const [i, raw] of list.slice(0, maxEvents).entries()) {
    const p = OhEvent.safeParse(raw);
    if (!p.success) return null;
    const e = p.data;
    const args = e.args ?? {};
    const command =
      typeof args.command === "string" ? args.command : typeof args.code === "string" ? args.code : "";
    const thought = typeof args.thought === "string" ? args.thought : (e.thought ?? "");
    events.push({
      id: String(e.id ?? i),
      time: e.timestamp ?? "",
      source: e.source,
      kind: e.action ? `action: ${e.action}` : `observation: ${e.observation}`,
      text: e.message ?? thought,
      detail: command || e.content || "",
    });
  }
  return events;
}

export interface TablePreview {
  header: string[];
  rows: string[][];
  totalRows: number;
  more: boolean;
}

/** The first rows and columns of a CSV, every cell clipped. */
export function previewCsv(text: string, maxRows = 50, maxCols = 20, maxCell = 200): TablePreview {
  const all = parseCsv(text);
  const cut = (r: string[]) =>
    r.slice(0, maxCols).map((c) => (c.length > maxCell ? `${c.slice(0, maxCell)}…` : c));
  const [header = [], ...rows] = all;
  return {
    header: cut(header),
    rows: rows.slice(0, maxRows).map(cut),
    totalRows: rows.length,
    more: rows.length > maxRows || header.length > maxCols,
  };
}
