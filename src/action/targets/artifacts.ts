// Workflow artifacts: the runs of each side (one artifact for the head's, one for the base's), the
// viewer, the report, and the comment for the workflow_run relay. Every upload stands alone: one
// that fails is a warning and the others still go (never keeping the report or comment back).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { artifactName, notesText, uploadFolder, uploadRuns, type ArtifactApi } from "../artifacts.js";
import { inert } from "../../report/inert.js";
import { commentArtifactName, writeCommentFile } from "../relay.js";
import type { SuiteResults } from "../../results/schema.js";
import type { Delivery, ReportTarget } from "./target.js";

export interface ArtifactPlace {
  /** null when this job cannot upload; `unsupported` says why. */
  api: ArtifactApi | null;
  unsupported: string | null;
  /** The artifact's page from its id. */
  page: (id: number) => string;
  /** "-attempt2" on a re-run, else "": names must not collide across attempts. */
  attempt: string;
  suite: string;
  resultsDir: string;
  /** upload.binaryFiles: files the attempt could not mask because they are binary leave too. */
  binaryFiles?: boolean;
}

/** The suffix that keeps artifact names unique across re-run attempts. */
export const attemptSuffix = (env: NodeJS.ProcessEnv) =>
  env.GITHUB_RUN_ATTEMPT && env.GITHUB_RUN_ATTEMPT !== "1" ? `-attempt${env.GITHUB_RUN_ATTEMPT}` : "";

/**
 * Trajectories, one artifact per side (the head's runs; the base's when the baseline ran in this
 * job), then the viewer; the report links each head run to the head's artifact and the viewer's
 * page. `runFolder` is where a head run's folder is (merged shards keep theirs apart).
 */
export function trajectoriesTarget(place: ArtifactPlace, runFolder: (runId: string) => string): ReportTarget {
  return {
    name: "the trajectory artifacts",
    async deliver(d) {
      const { ev } = d;
      const sides: { label: string; results: SuiteResults; dir: (runId: string) => string }[] = [
        { label: "head", results: ev.head, dir: runFolder },
        ...(ev.paths.base && ev.base
          ? [{ label: "base", results: ev.base, dir: () => join(place.resultsDir, "base") }]
          : []),
      ];
      const where = join(place.resultsDir, "head", "runs");
      if (!place.api) {
        d.warn(
          `medalist: trajectories not uploaded: ${place.unsupported}. They are on the runner under ${where}`,
        );
        d.notes.push(
          `> ℹ️ Trajectories were not uploaded: ${place.unsupported}. They are on the runner under \`${where}\`.`,
        );
        return;
      }
      const failed: { label: string; error: string }[] = [];
      for (const side of sides) {
        const name = artifactName(`medalist-${place.suite}-${side.label}${place.attempt}`);
        // Runs that never ran have no folder of their own.
        const runs = side.results.runs.filter(
          (r) => r.runDir !== "" && existsSync(resolve(side.dir(r.runId), r.runDir)),
        );
        try {
          const { id, notes } = await uploadRuns(
            place.api,
            name,
            runs.map((r) => resolve(side.dir(r.runId), r.runDir)),
            { binaryFiles: place.binaryFiles ?? false },
          );
          // File names are the agent's: JSON-quoted in the log, so none can start a workflow command.
          if (notes.length) d.info(`medalist: ${name} uploaded with changes: ${notesText(notes)}`);
          if (side.label === "head" && id !== undefined)
            for (const r of runs) d.links[r.runDir] = place.page(id);
        } catch (e) {
          failed.push({ label: side.label, error: `${name}: ${(e as Error).message}` });
        }
      }
      if (failed.length) {
        const what = `the ${failed.map((f) => f.label).join(" and ")} runs' trajectories were not uploaded`;
        const first = failed[0].error;
        d.warn(
          `medalist: ${what} (${JSON.stringify(first)}). They are on the runner under ${place.resultsDir}`,
        );
        // The service's message may quote a file name the agent chose: inert in the comment.
        d.notes.push(
          `> ℹ️ T${what.slice(1)} (${inert(first)}). They are on the runner under \`${place.resultsDir}\`.`,
        );
      }
      await uploadViewer(place, d);
    },
  };
}

async function uploadViewer(place: ArtifactPlace, d: Delivery): Promise<void> {
  if (!place.api || !d.ev.paths.viewer) return;
  try {
    const name = artifactName(`medalist-${place.suite}-viewer${place.attempt}`);
    const id = await uploadFolder(place.api, name, d.ev.paths.viewer);
    if (id !== undefined) d.viewerUrl = place.page(id);
  } catch (e) {
    d.warn(`medalist: viewer artifact not uploaded: ${(e as Error).message}`);
  }
}

/**
 * The report artifact (report.md and the results) and, on a pull request, comment.json for the
 * workflow_run relay (written beside report.md whether or not it can be uploaded).
 */
export function reportArtifactsTarget(
  place: ArtifactPlace,
  pr: { number: number; headSha: string } | null,
  runAttempt: string | undefined,
  commentFile: string,
): ReportTarget {
  return {
    name: "the report artifacts",
    async deliver(d) {
      const { api } = place;
      if (pr) {
        const body = d.report();
        writeCommentFile(commentFile, {
          version: 1,
          pr: pr.number,
          headSha: pr.headSha,
          suite: place.suite,
          body,
        });
        if (api)
          await api
            .upload(
              artifactName(commentArtifactName(place.suite, runAttempt)),
              [commentFile],
              place.resultsDir,
            )
            .catch((e: Error) => d.warn(`medalist: comment artifact not uploaded: ${e.message}`));
      }
      if (!api) return;
      try {
        const { paths } = d.ev;
        const files = [paths.report, paths.head, ...(paths.base ? [paths.base] : [])];
        const name = artifactName(`medalist-${place.suite}-report${place.attempt}`);
        const { id } = await api.upload(name, files, place.resultsDir);
        if (id !== undefined) d.reportArtifactUrl = place.page(id);
      } catch (e) {
        d.warn(`medalist: report artifact not uploaded: ${(e as Error).message}`);
      }
    },
  };
}
