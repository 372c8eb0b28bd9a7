import { resolve } from "node:path";
import { numberOption, parseCommandArgs, UserError, type Command } from "../command.js";
import { loadRegistry, selectCompetitions, unknownCompetition } from "../../registry/registry.js";
import { prepareCompetitions } from "../../prepare/prepare.js";
import { UPSTREAM_DESCRIPTIONS } from "../../prepare/description.js";
import { toCliJson } from "../../util/json.js";

const usage = `Usage: medalist prepare (--split NAME | --competition ID...) --data-dir DIR [options]

Makes competitions' data ready in MLE-bench's layout, <data-dir>/<id>/prepared/{public,private}:
  - data already prepared by MLE-bench there is checked (answers and sample submission present)
    and recorded in a checksum manifest; later checks only compare sizes and times (instant);
  - otherwise the competition's files are downloaded from Kaggle (resumable) and split by the
    competition's recipe, reproducing upstream's prepare.py (tabular lite competitions).
Kaggle credentials: KAGGLE_USERNAME and KAGGLE_KEY, or ~/.kaggle/kaggle.json. Each competition's
rules must have been accepted once on kaggle.com by that account.

Options:
  --split NAME          lite (= low), medium, high, all, dev, toy, …
  --competition ID      a competition (repeatable; with --split, added to it)
  --data-dir DIR        data root (default: $MEDALIST_DATA_DIR)
  --exclude-flagged     leave out competitions flagged upstream (leaked labels, …)
  --skip-verification   accept a Kaggle zip whose MD5 differs from upstream's
  --wait SECONDS        wait this long for another process preparing the same competition (3600)
  --kaggle-url URL      Kaggle API base URL (default https://www.kaggle.com/api/v1)
  --description-url URL where upstream's <id>/description.md files are fetched from (MD5-pinned;
                        default: MLE-bench on GitHub; "none": write a short stub instead)
  --registry DIR        competitions folder (default: the bundled one)
  --json                print the results as JSON`;

export const prepareCommand: Command = {
  name: "prepare",
  summary: "Check or prepare competitions' data (MLE-bench layout; Kaggle download + recipe)",
  usage,
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      split: { type: "string" },
      competition: { type: "string", multiple: true },
      "data-dir": { type: "string" },
      "exclude-flagged": { type: "boolean" },
      "skip-verification": { type: "boolean" },
      wait: { type: "string" },
      "kaggle-url": { type: "string" },
      "description-url": { type: "string" },
      registry: { type: "string" },
      json: { type: "boolean" },
    });
    const dataDir = values["data-dir"] ?? process.env.MEDALIST_DATA_DIR;
    if (!dataDir) throw new UserError("missing --data-dir (or set MEDALIST_DATA_DIR) (see --help)");
    if (!values.split && !values.competition?.length)
      throw new UserError("name a --split or --competition (see --help)");
    const registry = loadRegistry(values.registry);
    for (const id of values.competition ?? [])
      if (!registry.has(id)) throw unknownCompetition(registry, id, "--competition");
    const ids = selectCompetitions(registry, {
      split: values.split,
      include: values.competition ?? [],
      excludeFlagged: values["exclude-flagged"],
    });
    const waitSecs = values.wait === undefined ? 3600 : numberOption(values.wait, "--wait");
    const t0 = performance.now();
    const { results, failures, stopped } = await prepareCompetitions(
      ids.map((id) => registry.get(id)!),
      {
        dataDir: resolve(dataDir),
        kaggleUrl: values["kaggle-url"],
        descriptionUrl:
          values["description-url"] === "none"
            ? undefined
            : (values["description-url"] ?? UPSTREAM_DESCRIPTIONS),
        skipVerification: values["skip-verification"],
        lockWaitMs: waitSecs * 1000,
        log: values.json ? undefined : (line) => console.error(line),
      },
    );
    const totalMs = performance.now() - t0;
    if (values.json) {
      console.log(toCliJson({ results, failures, stopped, totalMs }));
    } else {
      for (const r of results) {
        const n = r.upstreamMismatches.length;
        const warn = n
          ? ` (${n} file(s) differ from upstream's checksums: ${r.upstreamMismatches.join(", ")})`
          : "";
        console.log(`${r.status.padEnd(9)} ${r.id}  ${r.ms.toFixed(0)} ms${warn}`);
      }
      for (const f of failures) {
        console.log(`FAILED    ${f.message.startsWith(`${f.id}:`) ? f.message : `${f.id}: ${f.message}`}`);
      }
      console.log(
        `\n${results.length} ready, ${failures.length} failed, ${(totalMs / 1000).toFixed(2)} s in total (data in ${resolve(dataDir)})`,
      );
      // The cause that stopped the downloads, once (each competition's line above names it briefly).
      if (stopped) console.error(`medalist prepare: ${stopped.message}`);
    }
    // 2 when a failure is the user's to fix (credentials, an unknown competition), else 1.
    return failures.reduce((code, f) => Math.max(code, f.exitCode === 2 ? 2 : 1), 0);
  },
};
