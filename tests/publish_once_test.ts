// One `estate publish` decides once: the tool file is parsed once, at the edge (the CLI), and the
// store plans once — one classification of the input schema, and one of the output schema when
// the tool has one — which its registry adopts instead of planning again. Counted through the
// trace a publish tells (`PublishTrace`, `CliIO.trace`), on the folder store and on PostgreSQL.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli } from "../lib/cli/main.ts";
import { EstateDir } from "../lib/store/mod.ts";
import type { PublishTrace, ToolSpec } from "../mod.ts";
import { clock, lookup } from "./_store_fixtures.ts";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";

/** What one publish did: the subjects parsed, the schemas classified. */
interface Counted {
  code: number;
  out: string;
  parsed: string[];
  classified: string[];
}

/** `estate publish FILE ARGS…` with a counting trace. */
async function countedPublish(file: string, cwd: string, args: string[]): Promise<Counted> {
  const parsed: string[] = [], classified: string[] = [];
  const trace: PublishTrace = {
    parsed: (subject) => parsed.push(subject),
    classified: (schema, subject) => classified.push(`${schema} ${subject}`),
  };
  let out = "";
  const code = await runCli(["publish", file, ...args], {
    stdout: (t) => (out += t),
    stderr: (t) => (out += t),
    isTerminal: false,
    cwd,
    now: clock(),
    trace,
  });
  return { code, out, parsed, classified };
}

const OUTPUT: Partial<ToolSpec> = {
  outputSchema: { type: "object", properties: { status: { type: "string" } } },
};

/** A folder estate holding payments.lookup@1.0.0, and the file of 1.1.0 beside it. */
function folderEstate(changes: Partial<ToolSpec>): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "publish-once-"));
  EstateDir.open(dir, { now: clock() }).publish(lookup("1.0.0", changes));
  const file = path.join(dir, "lookup.tool.json");
  fs.writeFileSync(
    file,
    JSON.stringify(lookup("1.1.0", { ...changes, title: "Look up a payment by reference" })),
  );
  return { dir, file };
}

Deno.test("estate publish on the folder store parses the tool file once and classifies input and output once each", async () => {
  const { dir, file } = folderEstate(OUTPUT);
  try {
    const run = await countedPublish(file, dir, ["--estate", dir]);
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /published payments\.lookup@1\.1\.0 \(patch change against 1\.0\.0\)/);
    assert.deepEqual(run.parsed, [file]);
    assert.deepEqual(run.classified, [
      "input payments.lookup@1.1.0",
      "output payments.lookup@1.1.0",
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

Deno.test("estate publish of a tool with no output schema classifies its input schema once and nothing else", async () => {
  const { dir, file } = folderEstate({});
  try {
    const run = await countedPublish(file, dir, ["--estate", dir]);
    assert.equal(run.code, 0, run.out);
    assert.deepEqual(run.parsed, [file]);
    assert.deepEqual(run.classified, ["input payments.lookup@1.1.0"]);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

Deno.test("estate publish of a new tool parses once and classifies nothing (there is no baseline)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "publish-once-"));
  try {
    const file = path.join(dir, "lookup.tool.json");
    fs.writeFileSync(file, JSON.stringify(lookup("1.0.0", OUTPUT)));
    const run = await countedPublish(file, dir, ["--estate", dir]);
    assert.equal(run.code, 0, run.out);
    assert.deepEqual(run.parsed, [file]);
    assert.deepEqual(run.classified, []);
    assert.equal(EstateDir.open(dir).registry.latest("payments.lookup")?.version, "1.0.0");
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

Deno.test("a refused estate publish decides once too: one parse, one classification, exit 1", async () => {
  const { dir, file } = folderEstate({});
  try {
    // Removing the required reference's property is major: 1.1.0 is refused.
    fs.writeFileSync(
      file,
      JSON.stringify(lookup("1.1.0", { inputSchema: { type: "object", properties: {} } })),
    );
    const run = await countedPublish(file, dir, ["--estate", dir]);
    assert.equal(run.code, 1, run.out);
    assert.match(run.out, /Cannot publish payments\.lookup@1\.1\.0/);
    assert.deepEqual(run.parsed, [file]);
    assert.deepEqual(run.classified, ["input payments.lookup@1.1.0"]);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

const skip = postgresSkipReason();
Deno.test({
  name: skip
    ? `[postgres] estate publish on a database estate decides once (ignored: ${skip})`
    : "[postgres] estate publish on a database estate parses once and classifies input and output once each (its stored-call replay taken into the one plan)",
  ignore: skip !== undefined,
  async fn() {
    const pg = await startPostgres();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "publish-once-"));
    try {
      const first = path.join(dir, "first.tool.json");
      fs.writeFileSync(first, JSON.stringify(lookup("1.0.0", OUTPUT)));
      const setup = await countedPublish(first, dir, ["--store", pg.url]);
      assert.equal(setup.code, 0, setup.out);
      const file = path.join(dir, "lookup.tool.json");
      fs.writeFileSync(
        file,
        JSON.stringify(lookup("1.1.0", { ...OUTPUT, title: "Look up a payment by reference" })),
      );
      const run = await countedPublish(file, dir, ["--store", pg.url]);
      assert.equal(run.code, 0, run.out);
      assert.match(run.out, /published payments\.lookup@1\.1\.0 \(patch change against 1\.0\.0\)/);
      assert.deepEqual(run.parsed, [file]);
      assert.deepEqual(run.classified, [
        "input payments.lookup@1.1.0",
        "output payments.lookup@1.1.0",
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true });
      await pg.stop();
    }
  },
});
