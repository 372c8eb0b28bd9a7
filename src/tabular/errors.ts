/** A CSV file that cannot be read as a table; the message is the plain reason. */
export class CsvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CsvError";
  }
}
