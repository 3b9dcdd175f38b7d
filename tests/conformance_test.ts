/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) against our
 * server over our Streamable HTTP transport (tests/conformance/fixture_server.ts). The suite runs
 * under Deno (it needs Node 22 APIs); the scenarios we do not pass, and why, are in
 * tests/conformance/expected-failures.yml. Also our client (tests/conformance/fixture_client.ts)
 * against the suite's mock servers: the handshake scenarios, and every `auth/*` scenario (our
 * `OAuthClient` against the suite's mock authorization and resource servers).
 */
import assert from "node:assert/strict";
import { startFixture } from "./conformance/fixture_server.ts";
import { runAuthScenarios } from "./conformance/auth_scenarios.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";
const BASELINE = new URL("./conformance/expected-failures.yml", import.meta.url).pathname;
const CLIENT = new URL("./conformance/fixture_client.ts", import.meta.url).pathname;

/** Runs the conformance CLI; returns its exit code and its output (stdout then stderr). */
async function conformance(
  ...args: string[]
): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CONFORMANCE, ...args],
    cwd: ROOT, // the project's node_modules and deno.lock: no download
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  // deno-lint-ignore no-control-regex
  return { code, output: text.replace(/\x1b\[[0-9;]*m/g, "") };
}

/** The scenarios a section (`server:` or `client:`) of the baseline file lists. */
function baseline(section: "server" | "client"): string[] {
  const out: string[] = [];
  let current = "";
  for (const line of Deno.readTextFileSync(BASELINE).split("\n")) {
    const key = /^([a-z]+):/.exec(line);
    if (key) current = key[1];
    const item = /^\s+-\s*([a-z0-9_/-]+)/.exec(line);
    if (item && current === section) out.push(item[1]);
  }
  return out;
}

Deno.test("conformance 0.1.16, active server suite: everything passes but the listed expected failures", async () => {
  const fixture = await startFixture();
  try {
    const { code, output } = await conformance(
      "server",
      "--url",
      fixture.url,
      "--expected-failures",
      BASELINE,
    );
    const failed = [...output.matchAll(/^✗ ([a-z0-9-]+):/gm)].map((m) => m[1]);
    const passed = [...output.matchAll(/^✓ ([a-z0-9-]+):/gm)].map((m) => m[1]);
    const total = /^Total: (\d+) passed, (\d+) failed/m.exec(output);
    console.log(
      `conformance ${CONFORMANCE.split("@").at(-1)} (active suite): ` +
        `${passed.length} scenarios passed, ${failed.length} failed (all expected); ` +
        `checks: ${total?.[1]} passed, ${total?.[2]} failed`,
    );
    assert.equal(code, 0, output);
    assert.deepEqual(failed.sort(), baseline("server").sort(), output);
    assert.ok(passed.length >= 20, output);
  } finally {
    await fixture.close();
  }
});

Deno.test("conformance 0.1.16, json-schema-2020-12 (pending suite): $schema, $defs and additionalProperties survive listing", async () => {
  const fixture = await startFixture();
  try {
    const { code, output } = await conformance(
      "server",
      "--url",
      fixture.url,
      "--scenario",
      "json-schema-2020-12",
    );
    assert.equal(code, 0, output);
    assert.match(output, /Passed: 4\/4, 0 failed/);
  } finally {
    await fixture.close();
  }
});

Deno.test("conformance 0.1.16, client scenarios: our McpClient over Streamable HTTP against the suite's mock servers", async () => {
  const results: string[] = [];
  for (const scenario of ["initialize", "tools_call", "sse-retry"]) {
    const { code, output } = await conformance(
      "client",
      "--command",
      `"${Deno.execPath()}" run -A "${CLIENT}"`,
      "--scenario",
      scenario,
      "--expected-failures",
      BASELINE,
    );
    const passed = /✅ OVERALL: PASSED/.test(output);
    results.push(`${scenario} ${passed ? "passed" : "failed"}`);
    assert.equal(code, 0, output);
    assert.doesNotMatch(
      output,
      /Passed: 0\/0/,
      `${scenario} ran no check:\n${output}`,
    );
    assert.equal(passed, !baseline("client").includes(scenario), output);
  }
  console.log(`conformance client scenarios: ${results.join(", ")}`);
});

Deno.test("conformance 0.1.16, every auth/* client scenario: our McpClient with OAuthClient, failures only where listed", async () => {
  const { passed, failed } = await runAuthScenarios(
    "0.1.16",
    BASELINE,
    baseline("client"),
  );
  assert.ok(passed.length + failed.length >= 20);
  console.log(
    `conformance 0.1.16 auth client scenarios: ${passed.length} passed, ${failed.length} failed (expected: ${
      failed.join(", ") || "none"
    })`,
  );
});
