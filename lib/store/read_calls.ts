/**
 * Streaming a `calls.jsonl` file: stored calls one at a time, with flat memory.
 *
 * @module
 */
import type { StoredCall } from "../estate/registry.ts";
import { CorpusError } from "./corpus_error.ts";
import { locateJsonError } from "./_json.ts";
import { DEFAULT_BUFFER_SIZE, readLines } from "./_lines.ts";
import { storedCallProblems } from "./_stored_call.ts";

/** Options for {@linkcode readCallsFile}. */
export interface ReadCallsOptions {
  /** Bytes per read. Default 64 KiB. Memory use is about this plus the longest line. */
  bufferSize?: number;
}

/**
 * Reads a `calls.jsonl` file lazily: one JSON object per line
 * (`{"version","arguments","principal","at"}`), read with a fixed-size buffer so that memory stays
 * flat however large the file. Nothing is read before the first call is asked for. A missing file
 * has no calls; a last line without a newline is read like any other; `\r\n` line ends are
 * accepted. Every line must be a stored call: a blank or malformed line is an error, not skipped.
 *
 * @param path The file.
 * @param options The read size.
 * @returns The calls, in file order (line n is the n-th call).
 * @throws {CorpusError} While iterating, naming the file and line of the first line that is not
 *   valid UTF-8, not JSON, or not a stored call.
 *
 * @example
 * ```ts
 * import { readCallsFile } from "@tool-estate/core/store";
 * import assert from "node:assert/strict";
 * import fs from "node:fs";
 *
 * fs.mkdirSync(".scratch", { recursive: true });
 * const dir = fs.mkdtempSync(".scratch/calls-");
 * const file = `${dir}/calls.jsonl`;
 * fs.writeFileSync(file, '{"version":"1.0.0","arguments":{"reference":"PMT-000001"},"principal":"ops-bot","at":"2026-01-05T09:00:00Z"}\n');
 * assert.deepEqual([...readCallsFile(file)].map((c) => c.principal), ["ops-bot"]);
 * fs.rmSync(dir, { recursive: true });
 * ```
 */
export function* readCallsFile(
  path: string,
  options: ReadCallsOptions = {},
): Generator<StoredCall> {
  const versions = new Set<string>();
  for (const [line, text] of readLines(path, options.bufferSize ?? DEFAULT_BUFFER_SIZE)) {
    if (text.trim() === "") {
      throw new CorpusError(path, "empty line; every line must be a stored call", { line });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      const found = locateJsonError(text);
      throw new CorpusError(
        path,
        `not valid JSON: ${found?.problem ?? (e as Error).message}`,
        { line, column: found && found.offset + 1, cause: e },
      );
    }
    const problems = storedCallProblems(value, versions);
    if (problems.length) {
      throw new CorpusError(path, `not a stored call: ${problems.join("; ")}`, { line });
    }
    yield value as StoredCall;
  }
}
