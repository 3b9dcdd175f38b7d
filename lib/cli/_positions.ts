/**
 * Where a finding goes in a file's text, as the editor shows it: the one adapter between the CLI's
 * findings and the position code the editor uses (`_locations.ts`, jsonc-parser).
 *
 * @module
 */
import { LineIndex, locateSegments, parseToolFile } from "./_locations.ts";
import { parsePath } from "../schema/path.ts";
import type { PathSegment } from "../schema/types.ts";

/** A stretch of a text, from 1 (line) and 1 (column, UTF-16 code units as the editor counts). */
export interface Position {
  /** The line where the node starts, from 1. */
  line: number;
  /** The column where the node starts, from 1. */
  column: number;
  /** The line where the node's shown span ends. */
  endLine: number;
  /** The column just after the node's shown span. */
  endColumn: number;
  /** False when the node is not in the text and the position is its nearest enclosing node. */
  exact: boolean;
}

/**
 * Where a node of a JSON text is: a `$` path inside a top-level field of a tool file (`field`
 * `inputSchema`, path `$.properties.currency`), a top-level field itself (path undefined), or a
 * `$` path from the root of a bare schema (field undefined). A scalar is shown whole, an object or
 * array by its property key; a node missing from the text (a removed property) by its nearest
 * enclosing node, with `exact: false`.
 *
 * @param text The file's text.
 * @param field The top-level field the path is inside; undefined for a bare schema.
 * @param path The `$` path inside the field (or the document); undefined for the field itself.
 * @returns The position; line 1, column 1 for a text that cannot be parsed.
 */
export function positionOf(
  text: string,
  field: string | undefined,
  path: string | undefined,
): Position {
  const segments: PathSegment[] = field === undefined ? [] : [field];
  if (path !== undefined) {
    try {
      segments.push(...parsePath(path));
    } catch {
      // Not a `$` path: the field (or the root) is the nearest node there is.
    }
  }
  const span = locateSegments(parseToolFile(text), segments);
  const index = new LineIndex(text);
  const start = index.position(span.offset);
  const end = index.position(span.offset + span.length);
  return {
    line: start.line + 1,
    column: start.character + 1,
    endLine: end.line + 1,
    endColumn: end.character + 1,
    exact: span.exact,
  };
}
