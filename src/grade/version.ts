/**
 * The grader's version, part of every run's identity: bump it when a change to grading can give a
 * different score, validity or medal for the same submission, so finished runs are not reused.
 */
export const GRADER_VERSION = "1";
