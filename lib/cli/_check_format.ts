/** `--format` of `estate check` and `estate diff`, with `--json` its synonym for json. */
import { REPORT_FORMATS, type ReportFormat, reportFormat } from "../report/mod.ts";
import { type Args, UsageError } from "./_args.ts";

/**
 * The report format the flags ask for.
 *
 * @param args The parsed arguments.
 * @param json Whether `--json` was given.
 * @returns The format: `--format`, else json with `--json`, else text.
 * @throws {UsageError} When `--format` is not a format, or contradicts `--json`.
 */
export function checkFormat(args: Args, json: boolean): ReportFormat {
  const value = args.flags.get("format");
  if (value === undefined) return json ? "json" : "text";
  const format = reportFormat(String(value));
  if (!format) {
    throw new UsageError(
      `--format takes one of ${REPORT_FORMATS.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
  if (json && format !== "json") {
    throw new UsageError(`--json and --format ${format} exclude each other`);
  }
  return format;
}
