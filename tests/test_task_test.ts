/**
 * `deno task test` (scripts/test.ts) on a test file whose outcomes are known: the report shows a
 * failing test whole and Deno's summary, and nothing of the tests that passed or were ignored;
 * `--verbose` shows Deno's report as it is.
 */
import assert from "node:assert/strict";
import path from "node:path";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);

const SAMPLE = `
Deno.test("PASSES-QUIETLY", () => {});
Deno.test("PASSES-WITH-OUTPUT", () => {
  console.log("NOISE-OF-A-PASSING-TEST");
});
Deno.test("PASSES-WITH-STEPS", async (t) => {
  await t.step("STEP-THAT-PASSES", () => {});
});
Deno.test({ name: "IS-IGNORED", ignore: true, fn() {} });
Deno.test("FAILS-WITH-OUTPUT", () => {
  console.log("CLUE-OF-A-FAILING-TEST");
  throw new Error("BOOM-7");
});
Deno.test("FAILS-IN-A-STEP", async (t) => {
  await t.step("STEP-BESIDE-IT", () => {});
  await t.step("STEP-THAT-FAILS", () => {
    throw new Error("STEP-BOOM");
  });
});
`;

/** The report, indented: quoted in a failure message, its summary line is not taken for ours. */
function quoted(text: string): string {
  return text.replace(/^/gm, "  | ");
}

const SUMMARY = /^FAILED \| 3 passed \(2 steps\) \| 2 failed \(1 step\) \| 1 ignored /m;

async function runTask(
  ...args: string[]
): Promise<{ code: number; stdout: string }> {
  const dir = await Deno.makeTempDir({ prefix: "test-task-" });
  try {
    const file = path.join(dir, "sample_test.ts");
    await Deno.writeTextFile(file, SAMPLE);
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/test.ts", ...args, file],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stderr: "null",
    }).output();
    return { code, stdout: new TextDecoder().decode(stdout) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("deno task test shows a failing test whole and Deno's summary, and no passing test", async () => {
  const { code, stdout } = await runTask();
  assert.equal(code, 1);
  for (
    const shown of [
      "running 6 tests from",
      "FAILS-WITH-OUTPUT",
      "CLUE-OF-A-FAILING-TEST",
      "BOOM-7",
      "FAILS-IN-A-STEP",
      "STEP-BESIDE-IT",
      "STEP-THAT-FAILS",
      "STEP-BOOM",
      " ERRORS ",
      " FAILURES ",
    ]
  ) {
    assert.ok(stdout.includes(shown), `${shown} is shown:\n${quoted(stdout)}`);
  }
  for (
    const left of [
      "PASSES-QUIETLY",
      "PASSES-WITH-OUTPUT",
      "NOISE-OF-A-PASSING-TEST",
      "PASSES-WITH-STEPS",
      "STEP-THAT-PASSES",
      "IS-IGNORED",
    ]
  ) {
    assert.ok(
      !stdout.includes(left),
      `${left} is left out:\n${quoted(stdout)}`,
    );
  }
  // The summary .ci/run sums, unchanged.
  assert.ok(SUMMARY.test(stdout), `Deno's summary:\n${quoted(stdout)}`);
});

Deno.test("deno task test --verbose shows every test as Deno prints it", async () => {
  const { code, stdout } = await runTask("--verbose");
  assert.equal(code, 1);
  for (
    const shown of [
      "PASSES-QUIETLY ... ok",
      "NOISE-OF-A-PASSING-TEST",
      "STEP-THAT-PASSES ... ok",
      "IS-IGNORED ... ignored",
      "FAILS-WITH-OUTPUT ... FAILED",
    ]
  ) {
    assert.ok(stdout.includes(shown), `${shown} is shown:\n${quoted(stdout)}`);
  }
  assert.ok(SUMMARY.test(stdout), `Deno's summary:\n${quoted(stdout)}`);
});
