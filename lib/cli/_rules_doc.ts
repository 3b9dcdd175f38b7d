/**
 * docs/rules.md, written from the rule catalog: every rule's meaning and worked example, and the
 * rules.json format. tests/rules_test.ts holds the file to it; regenerate with
 * `deno run --allow-write scripts/rules_doc.ts`.
 *
 * @module
 */
import { EXAMPLE_TOOL as EXAMPLE, type Rule, RULES } from "../estate/rules.ts";

const code = (value: unknown): string => "`" + JSON.stringify(value) + "`";

function example(rule: Rule): string[] {
  const e = rule.example;
  const out: string[] = [];
  if (e.before !== undefined) {
    out.push(`- published \`inputSchema\`: ${code(e.before)}`);
  }
  if (e.after !== undefined) {
    out.push(`- draft \`inputSchema\`: ${code(e.after)}`);
  }
  if (e.published !== undefined) {
    out.push(`- published: the example tool with ${code(e.published)}`);
  }
  if (e.calls !== undefined) {
    out.push(`- stored calls (arguments): ${code(e.calls)}`);
  }
  if (e.draft !== undefined) {
    out.push(`- draft: the example tool with ${code(e.draft)}`);
  }
  if (e.input !== undefined) out.push(`- input: \`${e.input}\``);
  out.push(`- gives: \`${e.gives}\``);
  return out;
}

/**
 * The text of docs/rules.md.
 *
 * @returns The markdown.
 */
export function rulesMarkdown(): string {
  const out: string[] = [
    "# Rules",
    "",
    "<!-- Generated from lib/estate/rules.ts by scripts/rules_doc.ts; tests/rules_test.ts holds it to the catalog. -->",
    "",
    "Every finding of `estate check` (and the other checking commands) has a stable rule id: a",
    "schema change kind, or a check's code. `estate rules` lists them; SARIF reports link here.",
    "Every example below is run by tests/rules_test.ts and gives what it says.",
    "",
    "## Severities and rules.json",
    "",
    "- A **change** finding (one per schema change, at its node) is a `warning` when the change is",
    "  major and `info` otherwise. Whether the version is high enough is `version-too-low`'s",
    "  business. In `outputSchema` the bump is mirrored (narrowing an output is minor, widening it",
    "  major: `classifyOutputSchemaChange`).",
    "- A **check** finding has its rule's default severity. A _fixed_ rule is a refusal of",
    "  `publish`: it cannot be lowered, turned off or ignored, so a passing check still means",
    "  `publish` accepts the draft.",
    "- `<estate>/rules.json` (or `estate check --rules FILE`) sets severities and ignores:",
    "",
    "```json",
    "{",
    '  "rules": { "property-removed": "error", "description": "off" },',
    '  "ignore": [',
    '    { "rule": "enum-narrowed", "tool": "fx.quote", "path": "$.properties.currency",',
    '      "reason": "EUR-only since the 2027 cut-over; callers told", "expires": "2027-06-30" }',
    "  ]",
    "}",
    "```",
    "",
    "  A severity of `error` fails the check on such a change even when the version bump covers",
    "  it; `off` drops the rule's findings. An ignore drops the findings of its rule (optionally",
    "  only of a `tool`, a `field` and a `$` `path` with everything under it) through its `expires`",
    "  day (UTC); after that it suppresses nothing and fails the check as `ignore-expired`. An",
    "  unknown rule, a missing reason or expiry, or a bad date is an input error (exit 2) naming",
    "  the file, line and column.",
    "",
    "The check examples edit this tool (`the example tool`):",
    "",
    "```json",
    JSON.stringify(EXAMPLE, null, 2),
    "```",
    "",
  ];
  for (
    const [title, kind] of [["Schema changes", "change"], [
      "Checks",
      "check",
    ]] as const
  ) {
    out.push(`## ${title}`, "");
    for (const rule of RULES.filter((r) => r.kind === kind)) {
      const severity = rule.kind === "change"
        ? `usually ${rule.usualBump}: ${rule.defaultSeverity} by default`
        : `${rule.defaultSeverity} by default${rule.fixed ? ", fixed (a refusal of publish)" : ""}`;
      out.push(
        `### ${rule.id}`,
        "",
        `${rule.summary[0].toUpperCase()}${rule.summary.slice(1)} (${severity}).`,
        "",
        rule.meaning,
        "",
        ...example(rule),
        "",
      );
    }
  }
  return out.join("\n");
}
