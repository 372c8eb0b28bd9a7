/** An error meant for the user: printed as one line, no stack trace. */
export class UserError extends Error {
  constructor(
    message: string,
    /** Process exit code: 2 for bad input or config, 1 for other failures. */
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = "UserError";
  }
}
