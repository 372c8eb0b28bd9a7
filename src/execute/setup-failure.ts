/**
 * The suite could not set up what every run needs (the agent image did not build, its base image is
 * missing, it cannot run): the suite's failure, not the agent's. No run starts; each is recorded as
 * not run for this cause, so none counts in the medal rate and the gate fails closed.
 */
export class SetupFailure extends Error {
  constructor(
    /** One line: what failed and its real cause (the failing build step's own error line). */
    readonly line: string,
    /** The build's output kept on disk, when there is one (absolute path). */
    readonly buildLog: string | null = null,
  ) {
    super(line);
    this.name = "SetupFailure";
  }
}
