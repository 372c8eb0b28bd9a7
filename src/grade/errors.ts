/** A submission (or answers file) that cannot be graded; the message is the plain reason. */
export class SubmissionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SubmissionError";
  }
}
