/**
 * Reads the official JSON-Schema-Test-Suite (draft 2020-12) from `../shared/JSON-Schema-Test-Suite`
 * beside the repository, and says which files and cases run, with a reason for every one that does not.
 */

/** The suite folder, resolved from the repository root. */
export const SUITE_DIR: URL = new URL(
  "../../shared/JSON-Schema-Test-Suite/tests/draft2020-12/",
  import.meta.url,
);

/** One test case of the suite. */
export interface SuiteCase {
  file: string;
  group: string;
  description: string;
  schema: unknown;
  data: unknown;
  valid: boolean;
  /** Why this case is not run, or undefined when it runs. */
  skip?: string;
  /** Whether `format` is asserted for this file. */
  formatAssertion: boolean;
}

interface Expected {
  "unsupported files": Record<string, string>;
  cases: Record<string, string>;
  groups: Record<string, string>;
}

/** The optional files that test what the validator asserts: formats and ECMA-262 regex. */
export const OPTIONAL_FILES: readonly string[] = [
  "optional/bignum.json",
  "optional/ecmascript-regex.json",
  "optional/float-overflow.json",
  "optional/non-bmp-regex.json",
  ...[
    "date",
    "date-time",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "time",
    "uri",
    "uuid",
  ].map((f) => `optional/format/${f}.json`),
];

/** Whether the suite is present beside the repository. */
export function suitePresent(): boolean {
  try {
    return Deno.statSync(SUITE_DIR).isDirectory;
  } catch {
    return false;
  }
}

/** Every case of every file: the keyword files (top level) and {@link OPTIONAL_FILES}. */
export function loadSuite(): {
  cases: SuiteCase[];
  unsupported: Record<string, string>;
} {
  const expected = JSON.parse(
    Deno.readTextFileSync(
      new URL("./testdata/suite_expected_failures.json", import.meta.url),
    ),
  ) as Expected;
  const top = [...Deno.readDirSync(SUITE_DIR)].filter((e) => e.isFile && e.name.endsWith(".json"))
    .map((e) => e.name).sort();
  const cases: SuiteCase[] = [];
  for (const file of [...top, ...OPTIONAL_FILES]) {
    if (Object.hasOwn(expected["unsupported files"], file)) continue;
    const groups = JSON.parse(
      Deno.readTextFileSync(new URL(file, SUITE_DIR)),
    ) as {
      description: string;
      schema: unknown;
      tests: { description: string; data: unknown; valid: boolean }[];
    }[];
    for (const g of groups) {
      for (const t of g.tests) {
        const key = `${file} :: ${g.description} :: ${t.description}`;
        cases.push({
          file,
          group: g.description,
          description: t.description,
          schema: g.schema,
          data: t.data,
          valid: t.valid,
          skip: expected.cases[key] ??
            expected.groups[`${file} :: ${g.description}`],
          formatAssertion: file.startsWith("optional/format/"),
        });
      }
    }
  }
  return { cases, unsupported: expected["unsupported files"] };
}
