/**
 * Where a finding goes in a tool file's text: a `$` path inside `inputSchema` or `outputSchema`, or a top-level
 * field, turned into an offset range with jsonc-parser. Pure: no editor, no file system. The one
 * module both the editor's diagnostics (extension/src/check_file.ts) and the CLI's reports
 * (`file:line:col`, SARIF regions, GitHub annotations: lib/cli/_check_report.ts) take positions
 * from, so both put a finding on the same node.
 *
 * @module
 */
import { findNodeAtOffset, type Node, type ParseError, parseTree } from "jsonc-parser";
import type { FindingTarget } from "../estate/check_draft.ts";
import { TOOL_SPEC_FIELDS } from "../estate/spec.ts";
import { parsePath } from "../schema/path.ts";
import type { PathSegment } from "../schema/types.ts";

/** A stretch of the text, by UTF-16 offset (what LSP positions count). */
export interface Span {
  /** Where it starts. */
  offset: number;
  /** How long it is. */
  length: number;
  /** False when the target is not in the text and the span is its nearest enclosing node. */
  exact: boolean;
}

/** A tool file's text parsed into a syntax tree, with its syntax errors. */
export interface ToolFileTree {
  /** The root node; undefined for an empty text. */
  root: Node | undefined;
  /** Syntax errors (jsonc-parser is tolerant: the tree holds what could be read). */
  errors: ParseError[];
}

/** The top-level fields of a tool spec, as `parseToolSpec` names them in its problems. */
export const TOOL_FIELDS: readonly string[] = TOOL_SPEC_FIELDS;

/**
 * Parses a tool file's text (strict JSON: no comments, no trailing commas).
 *
 * @param text The file's text.
 * @returns The tree and the syntax errors.
 */
export function parseToolFile(text: string): ToolFileTree {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: true,
  });
  return { root, errors };
}

/** The child of an object (by key) or array (by index), or undefined. */
function child(node: Node, segment: PathSegment): Node | undefined {
  if (node.type === "object" && typeof segment === "string") {
    // The last property with the key wins, as for JSON.parse.
    let found: Node | undefined;
    for (const prop of node.children ?? []) {
      const [key, value] = prop.children ?? [];
      if (key?.value === segment && value) found = value;
    }
    return found;
  }
  if (node.type === "array" && typeof segment === "number") {
    return node.children?.[segment];
  }
  return undefined;
}

/**
 * The span that shows a node: a scalar value itself; an object or array by its property key when
 * it has one (a one-line squiggle, not the whole block), else by its opening bracket.
 */
function show(node: Node): { offset: number; length: number } {
  if (node.type === "object" || node.type === "array") {
    const parent = node.parent;
    if (parent?.type === "property" && parent.children?.[0]) {
      const key = parent.children[0];
      return { offset: key.offset, length: key.length };
    }
    return { offset: node.offset, length: 1 };
  }
  return { offset: node.offset, length: node.length };
}

/**
 * Finds a node by its segments from the root, falling back to the nearest node that exists.
 *
 * @param root The document's root node.
 * @param segments Keys and indexes from the root down.
 * @returns The node reached and whether every segment was found.
 */
export function findNode(
  root: Node,
  segments: readonly PathSegment[],
): { node: Node; exact: boolean } {
  let node = root;
  for (const s of segments) {
    const next = child(node, s);
    if (!next) return { node, exact: false };
    node = next;
  }
  return { node, exact: true };
}

/**
 * The segments from the document root to a finding's target: `version` → `["version"]`,
 * `inputSchema` at `$.properties.currency` → `["inputSchema", "properties", "currency"]`.
 *
 * @param target Where `checkDraft` puts a finding.
 * @returns The segments; for a path that is not a `$` path, just `["inputSchema"]`.
 */
export function targetSegments(target: FindingTarget): PathSegment[] {
  if (target.field !== "inputSchema" && target.field !== "outputSchema") {
    return [target.field];
  }
  try {
    return [target.field, ...parsePath(target.path)];
  } catch {
    return [target.field];
  }
}

/**
 * Where a finding goes in the text. A scalar (the version string, a `pattern`) is shown whole; an
 * object or array by its property key (`"currency"` for `$.properties.currency`, `"inputSchema"`
 * for `$`). A node missing from the text (a removed property) is shown at its nearest enclosing
 * node, with `exact: false`.
 *
 * @param tree The parsed file.
 * @param target The finding's target.
 * @returns The span; the start of the text when there is no tree.
 */
export function locateTarget(tree: ToolFileTree, target: FindingTarget): Span {
  return locateSegments(tree, targetSegments(target));
}

/**
 * Where a node given by its segments goes in the text (see {@linkcode locateTarget}).
 *
 * @param tree The parsed file.
 * @param segments Keys and indexes from the document root.
 * @returns The span.
 */
export function locateSegments(
  tree: ToolFileTree,
  segments: readonly PathSegment[],
): Span {
  if (!tree.root) return { offset: 0, length: 0, exact: false };
  const { node, exact } = findNode(tree.root, segments);
  return { ...show(node), exact };
}

/**
 * Where a `parseToolSpec` problem goes: at the field it names when the field is in the text
 * (`sideEffect must be one of …`, `unknown field foo`), else at the opening brace of the file
 * (`owner is required`).
 *
 * @param tree The parsed file.
 * @param problem One of `ToolSpecError.problems`.
 * @returns The span.
 */
export function locateSpecProblem(tree: ToolFileTree, problem: string): Span {
  const unknown = /^unknown field (.+)$/.exec(problem);
  const field = unknown ? unknown[1] : /^([A-Za-z]+)\b/.exec(problem)?.[1];
  if (
    field !== undefined && (unknown || TOOL_FIELDS.includes(field)) && tree.root
  ) {
    const { node, exact } = findNode(tree.root, [field]);
    if (exact) {
      // An unknown field is shown by its key, a known one as any node.
      const key = node.parent?.type === "property" ? node.parent.children?.[0] : undefined;
      if (unknown && key) {
        return { offset: key.offset, length: key.length, exact: true };
      }
      return { ...show(node), exact: true };
    }
  }
  return tree.root
    ? { offset: tree.root.offset, length: 1, exact: false }
    : { offset: 0, length: 0, exact: false };
}

/**
 * Whether an offset is on the top-level `version` property, key or value (for hover).
 *
 * @param tree The parsed file.
 * @param offset A position in the text.
 * @returns True when the offset is on the top-level `version` property (key or value).
 */
export function isOnVersion(tree: ToolFileTree, offset: number): boolean {
  if (!tree.root) return false;
  let node: Node | undefined = findNodeAtOffset(tree.root, offset, true);
  while (node && node.type !== "property") node = node.parent;
  return node !== undefined && node.parent === tree.root &&
    node.children?.[0]?.value === "version";
}

/** Converts offsets to LSP line/character positions (UTF-16 code units, as JS strings count). */
export class LineIndex {
  readonly #starts: number[] = [0];

  /**
   * Indexes the line starts of a text.
   *
   * @param text The text.
   */
  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.#starts.push(i + 1);
      else if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        this.#starts.push(i + 1);
      }
    }
  }

  /**
   * The position of an offset.
   *
   * @param offset A UTF-16 offset.
   * @returns Zero-based line and character.
   */
  position(offset: number): { line: number; character: number } {
    let lo = 0, hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.#starts[lo] };
  }

  /**
   * The offset of a position (clamped to the line starts known).
   *
   * @param position Zero-based line and character.
   * @returns The UTF-16 offset.
   */
  offset(position: { line: number; character: number }): number {
    const line = Math.min(Math.max(position.line, 0), this.#starts.length - 1);
    return this.#starts[line] + position.character;
  }
}
