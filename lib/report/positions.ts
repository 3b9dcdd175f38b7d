/**
 * Where a finding goes in a file's text, as reports count (1-based lines and columns): the one
 * adapter between findings and the position code (`locations.ts`, jsonc-parser), so the CLI's
 * reports and the editor's diagnostics put a finding at the same place.
 *
 * @module
 */
import { LineIndex, locateSegments, parseToolFile } from "./locations.ts";
import { parsePath } from "../schema/path.ts";
import type { PathSegment } from "../schema/types.ts";

/** A position in a text: 1-based line and column, and the end (column exclusive). */
export interface Place {
  /** The line where the span starts, from 1. */
  line: number;
  /** The column where the span starts, from 1 (UTF-16 code units, as the editor counts). */
  column: number;
  /** The line where the span ends. */
  endLine: number;
  /** The column just after the span. */
  endColumn: number;
}

/**
 * Where a span is, as reports count: 1-based lines and UTF-16 columns, the end column exclusive —
 * the LSP range of the editor's diagnostic plus one on each number.
 *
 * @param lines The text's line index.
 * @param span The span (`locations.ts`).
 * @returns The place.
 */
export function placeOf(
  lines: LineIndex,
  span: { offset: number; length: number },
): Place {
  const start = lines.position(span.offset);
  const end = lines.position(span.offset + span.length);
  return {
    line: start.line + 1,
    column: start.character + 1,
    endLine: end.line + 1,
    endColumn: end.character + 1,
  };
}

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
  return { ...placeOf(new LineIndex(text), span), exact: span.exact };
}
