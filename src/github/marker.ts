/** Hidden marker identifying the sticky comment of one (workflow, suite). */
export function commentMarker(workflow: string, suite: string): string {
  // "--" would end the HTML comment early; ":" separates the parts.
  const clean = (s: string) =>
    s
      .replace(/-{2,}/g, "-")
      .replace(/[:\r\n>]/g, "_")
      .trim();
  return `<!-- medalist:${clean(workflow)}:${clean(suite)} -->`;
}
