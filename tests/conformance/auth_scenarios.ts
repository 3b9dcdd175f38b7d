/**
 * Runs every `auth/*` client scenario of a conformance release against our client
 * (tests/conformance/fixture_client.ts: `McpClient` with `OAuthClient`), one scenario at a time,
 * and checks that exactly the listed ones fail.
 *
 * @module
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;
const CLIENT = new URL("./fixture_client.ts", import.meta.url).pathname;

/** Runs the conformance CLI of a release; its exit code and output (colours stripped). */
async function conformance(
  version: string,
  ...args: string[]
): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `npm:@modelcontextprotocol/conformance@${version}`,
      ...args,
    ],
    cwd: ROOT, // the project's node_modules and deno.lock: no download
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  // deno-lint-ignore no-control-regex
  return { code, output: text.replace(/\x1b\[[0-9;]*m/g, "") };
}

/**
 * Runs each `auth/*` client scenario the release lists, with `--expected-failures baseline`;
 * asserts that the suite accepts the outcome and that a scenario fails exactly when `expected`
 * lists it.
 *
 * @param version The conformance release, e.g. `0.1.16`.
 * @param baseline The expected-failures file.
 * @param expected The client scenarios that file lists.
 * @returns The scenarios that passed and those that failed.
 */
export async function runAuthScenarios(
  version: string,
  baseline: string,
  expected: readonly string[],
): Promise<{ passed: string[]; failed: string[] }> {
  const list = await conformance(version, "list");
  assert.equal(list.code, 0, list.output);
  const section = list.output.slice(list.output.indexOf("Client scenarios"));
  const end = section.indexOf("\n\n");
  const scenarios = [
    ...(end < 0 ? section : section.slice(0, end)).matchAll(
      /^\s+- (auth\/\S+)/gm,
    ),
  ]
    .map((m) => m[1]);
  assert.ok(scenarios.length > 0, list.output);
  const passed: string[] = [];
  const failed: string[] = [];
  for (const scenario of scenarios) {
    const { code, output } = await conformance(
      version,
      "client",
      "--command",
      `"${Deno.execPath()}" run -A "${CLIENT}"`,
      "--scenario",
      scenario,
      "--expected-failures",
      baseline,
    );
    const ok = /✅ OVERALL: PASSED/.test(output);
    (ok ? passed : failed).push(scenario);
    assert.equal(code, 0, `${scenario}:\n${output}`);
    assert.doesNotMatch(
      output,
      /Passed: 0\/0/,
      `${scenario} ran no check:\n${output}`,
    );
    assert.equal(ok, !expected.includes(scenario), `${scenario}:\n${output}`);
  }
  for (const entry of expected) {
    if (entry.startsWith("auth/")) {
      assert.ok(scenarios.includes(entry), `listed, not run: ${entry}`);
    }
  }
  return { passed, failed };
}
