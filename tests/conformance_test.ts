/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) against our
 * server over our Streamable HTTP transport (tests/conformance/fixture_server.ts). The suite runs
 * under Deno (it needs Node 22 APIs); the scenarios we do not pass, and why, are in
 * tests/conformance/expected-failures.yml.
 */
import assert from "node:assert/strict";
import { startFixture } from "./conformance/fixture_server.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";
const BASELINE = new URL("./conformance/expected-failures.yml", import.meta.url).pathname;

/** Runs the conformance CLI; returns its exit code and its output (stdout then stderr). */
async function conformance(...args: string[]): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CONFORMANCE, ...args],
    cwd: ROOT, // the project's node_modules and deno.lock: no download
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  // deno-lint-ignore no-control-regex
  return { code, output: text.replace(/\x1b\[[0-9;]*m/g, "") };
}

/** The scenarios listed in the baseline file (`server:` entries). */
function baseline(): string[] {
  return [...Deno.readTextFileSync(BASELINE).matchAll(/^\s*-\s*([a-z0-9-]+)/gm)].map((m) => m[1]);
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
    assert.deepEqual(failed.sort(), baseline().sort(), output);
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
