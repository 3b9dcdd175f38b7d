/**
 * Quiets `deno test`'s default (pretty) report, a line at a time: a passing or ignored test, with
 * its steps and whatever it printed, is dropped; a failing one is kept whole (the file it is in,
 * its output, its steps, its result); Deno's ERRORS and FAILURES sections and its summary line
 * (`ok | N passed | M failed …`) pass through unchanged.
 *
 * @module
 */

/**
 * A line of Deno's output with its colours removed.
 *
 * @param line The line.
 * @returns The text.
 */
export function plain(line: string): string {
  // deno-lint-ignore no-control-regex
  return line.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
}

/** A test's result line, at the top level (steps are indented). */
const RESULT = /^\S.* \.\.\. (ok|ignored|FAILED|cancelled)\b/;
/** Where Deno's closing report begins: every line from here on is kept. */
const REPORT = /^( ERRORS | FAILURES |(ok|FAILED) \| \d+ passed)/;

/** Filters the lines of a `deno test` report; see the module documentation. */
export class QuietReport {
  #header: string | undefined;
  #headerShown = false;
  #pending: string[] = [];
  #passthrough = false;
  #passed = 0;

  /** How many passing or ignored tests were left out so far. */
  get quieted(): number {
    return this.#passed;
  }

  /**
   * Takes one line of the report (without its newline).
   *
   * @param line The line.
   * @returns The lines to print now (each without its newline).
   */
  line(line: string): string[] {
    if (this.#passthrough) return [line];
    const text = plain(line);
    if (REPORT.test(text)) {
      this.#passthrough = true;
      return [...this.#flushPending(), "", line];
    }
    if (/^running \d+ tests? from /.test(text)) {
      const out = this.#flushPending();
      this.#header = line;
      this.#headerShown = false;
      return out;
    }
    const result = RESULT.exec(text);
    if (result && (result[1] === "ok" || result[1] === "ignored")) {
      this.#pending = [];
      this.#passed++;
      return [];
    }
    if (result || /^Uncaught error from /.test(text)) {
      const out = [...this.#withHeader(this.#pending), line];
      this.#pending = [];
      return out;
    }
    this.#pending.push(line);
    return [];
  }

  /**
   * Ends the report.
   *
   * @returns Whatever was held back that did not belong to a passing test.
   */
  end(): string[] {
    return this.#flushPending();
  }

  #flushPending(): string[] {
    const pending = this.#pending;
    this.#pending = [];
    return pending.some((l) => plain(l).trim() !== "") ? this.#withHeader(pending) : [];
  }

  #withHeader(lines: string[]): string[] {
    if (this.#headerShown || this.#header === undefined) return lines;
    this.#headerShown = true;
    return [this.#header, ...lines];
  }
}
