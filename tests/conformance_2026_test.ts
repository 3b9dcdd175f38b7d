/**
 * The MCP conformance suite's pre-release (@modelcontextprotocol/conformance 0.2.0-alpha.12) with
 * `--requirements 2026-07-28` (the scenarios the stateless revision requires, plus unscored
 * extension and pending ones) against tests/conformance/fixture_server.ts. What we fail, and why,
 * is in tests/conformance/expected-failures-2026.yml; entries are scenarios or
 * `<scenario>:<check-id>`. Also every `auth/*` client scenario against our client
 * (tests/conformance/fixture_client.ts, `McpClient` with `OAuthClient`).
 *
 * The alpha's baseline check leaves unscored scenarios (the tasks extension, pending ones) out of
 * its verdict, so the test also compares the failing set with the listed set itself: every listed
 * entry is either reported as an expected failure by the suite or names an unscored scenario that
 * fails, and every failing scenario is covered by an entry.
 */
import assert from "node:assert/strict";
import { startFixture } from "./conformance/fixture_server.ts";
import { runAuthScenarios } from "./conformance/auth_scenarios.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";
const BASELINE = new URL("./conformance/expected-failures-2026.yml", import.meta.url).pathname;

/** The entries of a section (`server:` or `client:`) of the baseline. */
function baseline(section: "server" | "client" = "server"): string[] {
  const out: string[] = [];
  let current = "";
  for (const line of Deno.readTextFileSync(BASELINE).split("\n")) {
    const key = /^([a-z]+):/.exec(line);
    if (key) current = key[1];
    const item = /^\s+-\s*([a-z0-9_/-]+(?::[a-z0-9_$-]+)?)/.exec(line);
    if (item && current === section) out.push(item[1]);
  }
  return out;
}

Deno.test("conformance 0.2.0-alpha.12, --requirements 2026-07-28: everything passes but the listed expected failures", async () => {
  const fixture = await startFixture();
  try {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        CONFORMANCE,
        "server",
        "--url",
        fixture.url,
        "--requirements",
        "2026-07-28",
        "--expected-failures",
        BASELINE,
      ],
      cwd: ROOT, // the project's node_modules and deno.lock: no download
      stdin: "null",
    }).output();
    const output = (new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr))
      // deno-lint-ignore no-control-regex
      .replace(/\x1b\[[0-9;]*m/g, "");
    const failed = [...output.matchAll(/^✗ ([a-z0-9-]+):/gm)].map((m) => m[1]);
    const passed = [...output.matchAll(/^✓ ([a-z0-9-]+):/gm)].map((m) => m[1]);
    const total = /^Total: (\d+) passed, (\d+) failed/m.exec(output);
    const reported = [...output.matchAll(/^\s+~ (\S+)$/gm)].map((m) => m[1]);
    const listed = baseline();
    console.log(
      `conformance ${CONFORMANCE.split("@").at(-1)} (--requirements 2026-07-28): ` +
        `${passed.length} scenarios passed, ${failed.length} failed; ` +
        `checks: ${total?.[1]} passed, ${total?.[2]} failed; ` +
        `${listed.length} expected failures listed`,
    );
    assert.equal(code, 0, output);
    assert.ok(total, output);
    assert.ok(passed.length >= 25, output);
    // Every listed entry is reported as expected, or is a whole (unscored) scenario that fails.
    for (const entry of listed) {
      assert.ok(
        reported.includes(entry) ||
          (!entry.includes(":") && failed.includes(entry)),
        `listed but not failing: ${entry}\n${output}`,
      );
    }
    // Every failing scenario is covered by an entry (itself, or one of its checks).
    for (const scenario of failed) {
      assert.ok(
        listed.some((e) => e === scenario || e.startsWith(`${scenario}:`)),
        `failing but not listed: ${scenario}\n${output}`,
      );
    }
    // What the suite reports as expected is exactly what is listed (no more).
    for (const entry of reported) assert.ok(listed.includes(entry), entry);
  } finally {
    await fixture.close();
  }
});

Deno.test("conformance 0.2.0-alpha.12, every auth/* client scenario: our McpClient with OAuthClient, failures only where listed", async () => {
  const { passed, failed } = await runAuthScenarios(
    "0.2.0-alpha.12",
    BASELINE,
    baseline("client"),
  );
  assert.ok(passed.length + failed.length >= 30);
  console.log(
    `conformance 0.2.0-alpha.12 auth client scenarios: ${passed.length} passed, ${failed.length} failed (expected: ${
      failed.join(", ") || "none"
    })`,
  );
});
