import { CsvError } from "../tabular/errors.js";

/** A submission (or answers file) that cannot be graded; the message is the plain reason. */
export class SubmissionError extends CsvError {
  constructor(message: string) {
    super(message);
    this.name = "SubmissionError";
  }
}
