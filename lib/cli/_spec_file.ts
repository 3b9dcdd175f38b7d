/** A tool file read as a kept spec, with its exact text (what a proposal's id hashes). */
import { keepToolSpec, type PublishTrace, type ToolSpec } from "../../mod.ts";
import { UsageError } from "./_args.ts";
import { readText } from "./_read_text.ts";

/**
 * Reads a tool file as a kept spec (`keepToolSpec`): JSON errors and spec problems are input
 * errors naming the file.
 */
export function readSpecFile(
  file: string,
  trace?: PublishTrace,
): { text: string; spec: ToolSpec } {
  const text = readText(file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  return { text, spec: keepToolSpec(value, { subject: file, ...(trace ? { trace } : {}) }) };
}
