/**
 * The error for a file in the estate that cannot be read as what it should be.
 *
 * @module
 */

/** Where in a file a problem is, counting lines and columns from 1. */
export interface CorpusErrorPosition {
  /** The line, counting from 1. */
  line?: number;
  /** The column on that line, counting from 1. */
  column?: number;
}

/**
 * A file in the estate (a version file, `lifecycle.json`, a line of `calls.jsonl`,
 * `principals.json`) that is not what it should be. The message starts with `file:line:column`
 * (as far as known), the way editors and compilers name a place, then says what is wrong.
 *
 * @example
 * ```ts
 * import { CorpusError } from "@tool-estate/core/store";
 * import assert from "node:assert/strict";
 * const e = new CorpusError("corpus/tools/fx.quote/calls.jsonl", "not valid JSON", { line: 12 });
 * assert.equal(e.message, "corpus/tools/fx.quote/calls.jsonl:12: not valid JSON");
 * assert.equal(e.line, 12);
 * ```
 */
export class CorpusError extends Error {
  /** The file, as the estate's path names it. */
  readonly file: string;
  /** The line, counting from 1, when the problem has one. */
  readonly line?: number;
  /** The column, counting from 1, when known. */
  readonly column?: number;

  /**
   * Makes the error for a problem in `file`.
   *
   * @param file The file.
   * @param problem What is wrong, without the file name.
   * @param where The line and column, when known; `cause` for an underlying error.
   */
  constructor(
    file: string,
    problem: string,
    where: CorpusErrorPosition & { cause?: unknown } = {},
  ) {
    const place = where.line === undefined
      ? file
      : `${file}:${where.line}${where.column === undefined ? "" : `:${where.column}`}`;
    super(
      `${place}: ${problem}`,
      where.cause === undefined ? undefined : { cause: where.cause },
    );
    this.name = "CorpusError";
    this.file = file;
    if (where.line !== undefined) this.line = where.line;
    if (where.column !== undefined) this.column = where.column;
  }
}
