/**
 * JSON text read from a file, with syntax errors located by line and column (engines disagree on
 * whether and how they report a position, so the place is found here).
 */
import { CorpusError } from "./corpus_error.ts";

/** A syntax error in JSON text: where (a UTF-16 offset) and what. */
interface JsonSyntaxError {
  offset: number;
  problem: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

function show(text: string, i: number): string {
  return i >= text.length ? "end of file" : JSON.stringify(text[i]);
}

/**
 * Finds the first syntax error in `text` (RFC 8259), without recursion so that depth does not
 * matter.
 *
 * @param text The JSON text.
 * @returns The error, or undefined when the text is valid JSON.
 */
export function locateJsonError(text: string): JsonSyntaxError | undefined {
  const stack: ("object" | "array")[] = [];
  let i = 0;
  const skip = () => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  };
  const fail = (expected: string): JsonSyntaxError => ({
    offset: i,
    problem: i >= text.length
      ? `unexpected end of file, expected ${expected} (is the file truncated?)`
      : `unexpected ${show(text, i)}, expected ${expected}`,
  });
  const string = (): JsonSyntaxError | undefined => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) return fail("the end of the string");
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c === 0x5c) {
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(text)) {
          return { offset: i, problem: "invalid escape in string" };
        }
        i = ESCAPE.lastIndex;
      } else if (c < 0x20) {
        return {
          offset: i,
          problem: "control character in string (escape it)",
        };
      } else i++;
    }
  };
  for (;;) {
    // A value is expected.
    skip();
    const c = text[i];
    if (c === "{" || c === "[") {
      i++;
      skip();
      const close = c === "{" ? "}" : "]";
      if (text[i] === close) {
        i++;
      } else {
        stack.push(c === "{" ? "object" : "array");
        if (c === "{") {
          if (text[i] !== '"') {
            return fail("a property name in double quotes or '}'");
          }
          const e = string();
          if (e) return e;
          skip();
          if (text[i] !== ":") return fail("':'");
          i++;
        }
        continue;
      }
    } else if (c === '"') {
      const e = string();
      if (e) return e;
    } else if (c === "t" || c === "f" || c === "n") {
      const word = c === "t" ? "true" : c === "f" ? "false" : "null";
      if (!text.startsWith(word, i)) return fail("a value");
      i += word.length;
    } else {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return fail("a value");
      i = NUMBER.lastIndex;
    }
    // A value ended: close containers until one continues with a comma.
    for (;;) {
      skip();
      const top = stack[stack.length - 1];
      if (top === undefined) {
        return i < text.length ? fail("end of file after the value") : undefined;
      }
      const close = top === "object" ? "}" : "]";
      if (text[i] === close) {
        stack.pop();
        i++;
        continue;
      }
      if (text[i] !== ",") return fail(`',' or '${close}'`);
      i++;
      if (top === "object") {
        skip();
        if (text[i] !== '"') return fail("a property name in double quotes");
        const e = string();
        if (e) return e;
        skip();
        if (text[i] !== ":") return fail("':'");
        i++;
      }
      break;
    }
  }
}

/**
 * The line and column (from 1) of a UTF-16 offset in `text`.
 *
 * @param text The text.
 * @param offset The offset.
 * @returns Line and column.
 */
export function lineAndColumn(
  text: string,
  offset: number,
): { line: number; column: number } {
  let line = 1, start = 0;
  for (
    let i = text.indexOf("\n");
    i !== -1 && i < offset;
    i = text.indexOf("\n", i + 1)
  ) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * Parses a JSON file's text, or throws a {@linkcode CorpusError} naming the file, line and column.
 *
 * @param text The file's text.
 * @param file The file's path, for the error.
 * @returns The parsed value.
 * @throws {CorpusError} When the text is not JSON.
 */
export function parseJsonFile(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const found = locateJsonError(text);
    if (!found) {
      throw new CorpusError(file, `not valid JSON (${(e as Error).message})`, {
        cause: e,
      });
    }
    throw new CorpusError(file, `not valid JSON: ${found.problem}`, {
      ...lineAndColumn(text, found.offset),
      cause: e,
    });
  }
}

/**
 * The line (from 1) on which `needle` first occurs in `text`, for pointing at a key in a file.
 *
 * @param text The text.
 * @param needle What to look for.
 * @returns The line, or undefined when absent.
 */
export function lineOf(text: string, needle: string): number | undefined {
  const at = text.indexOf(needle);
  return at === -1 ? undefined : lineAndColumn(text, at).line;
}
