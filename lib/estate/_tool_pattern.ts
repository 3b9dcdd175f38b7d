/**
 * The tool patterns the estate's settings name tools by (call limits, call approvals): a tool's
 * name, or a prefix ending in `.*` (`payments.*` is every tool whose name begins `payments.`).
 */

/**
 * Whether a pattern names a tool.
 *
 * @param pattern A name, or a prefix ending in `.*`.
 * @param tool A tool's name.
 * @returns True when it does.
 */
export function toolPatternMatches(pattern: string, tool: string): boolean {
  return pattern.endsWith(".*") ? tool.startsWith(pattern.slice(0, -1)) : tool === pattern;
}

/**
 * Whether a value is a usable tool pattern (a non-empty string other than `.*` alone).
 *
 * @param value The value.
 * @returns True when it is.
 */
export function isToolPattern(value: unknown): value is string {
  return typeof value === "string" && value !== "" && value !== ".*";
}
