/** "1 run", "2 runs": a count and its noun, plural when the count is not 1. */
export function countOf(n: number, word: string, plural = `${word}s`): string {
  return `${n} ${n === 1 ? word : plural}`;
}
