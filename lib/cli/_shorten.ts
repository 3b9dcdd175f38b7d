/**
 * Lists cut as every answer is: the shortening of findings, changes and rejecting nodes for
 * `limitList`, and the clause that says what a list left out.
 */
import {
  type DraftFinding,
  type RejectionsAtNode,
  type SchemaChange,
  shortenIssue,
  shortenText,
} from "../../mod.ts";

/** "and 3 more findings": the line or clause that says what a list left out. */
export function more(n: number, what: string): string {
  return `and ${n} more ${what}${n === 1 ? "" : "s"}`;
}

/** A draft finding with its path and message shortened. */
export const shortenFinding = (f: DraftFinding): DraftFinding => ({
  ...f,
  target: f.target.field === "inputSchema"
    ? { field: "inputSchema", path: shortenText(f.target.path) }
    : f.target,
  message: shortenText(f.message),
});

/** A schema change with its path and message shortened. */
export const shortenChange = (c: SchemaChange): SchemaChange => ({
  ...c,
  path: shortenText(c.path),
  message: shortenText(c.message),
});

/** A rejecting node with its schema path and example issue shortened. */
export const shortenNode = (n: RejectionsAtNode): RejectionsAtNode => ({
  ...n,
  schemaPath: shortenText(n.schemaPath),
  example: shortenIssue(n.example),
});
