import * as core from "@actions/core";

/** The action's entry; testable without side effects on import. */
export async function run(): Promise<void> {
  if (!process.env.GITHUB_ACTIONS) {
    core.setFailed("medalist: this is the GitHub Action entry point; outside GitHub Actions use the CLI (npx medalist --help).");
    return;
  }
  core.setFailed("medalist: action not implemented yet");
}
