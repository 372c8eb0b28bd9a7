import { CsvError } from "../tabular/errors.js";

/** A submission (or answers file) that cannot be graded; the message is the plain reason. */
export class SubmissionError extends CsvError {
  constructor(message: string) {
    super(message);
    this.name = "SubmissionError";
  }
}

/**
 * The answers cannot be graded the way upstream grades them (a single class for an AUC, repeated
 * ids where rows are paired by id): a grader problem, not the agent's fault.
 */
export class AnswersError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AnswersError";
  }
}
