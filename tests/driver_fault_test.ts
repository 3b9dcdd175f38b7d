/**
 * The PostgreSQL driver's closed-socket fault (porsager/postgres#1208): without the command
 * line's guard the process dies with a stack trace; with it, it stops with one clear line and exit
 * code 2. (`estate serve` records calls without a transaction, so a replica does not meet it:
 * tests/replicas_pg_test.ts restarts the database under load.)
 */
import assert from "node:assert/strict";
import { DRIVER_FAULT_MESSAGE, isDriverFault } from "../lib/cli/_driver_fault.ts";
import { ROOT } from "./_serve.ts";

Deno.test("isDriverFault knows the driver's write to a closed socket, and nothing else", () => {
  const fault = new TypeError(
    "Cannot read properties of null (reading 'write')",
  );
  fault.stack =
    `${fault.message}\n    at nextWrite (file:///x/node_modules/postgres/src/connection.js:255:22)`;
  assert.equal(isDriverFault(fault), true);
  const ours = new TypeError(
    "Cannot read properties of null (reading 'write')",
  );
  ours.stack = `${ours.message}\n    at f (file:///x/lib/cli/main.ts:1:1)`;
  assert.equal(isDriverFault(ours), false);
  assert.equal(isDriverFault(new Error("connection lost")), false);
  assert.equal(isDriverFault(undefined), false);
});

Deno.test("the driver's fault stops the command line with one line and exit 2, not a stack", async () => {
  const run = async (...extra: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}tests/fixtures/driver_fault.ts`, ...extra],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder();
    return {
      code: out.code,
      out: text.decode(out.stdout),
      err: text.decode(out.stderr),
    };
  };
  const bare = await run("--no-guard");
  assert.equal(bare.code, 1);
  assert.match(
    bare.err,
    /Uncaught TypeError: Cannot read properties of null \(reading 'write'\)/,
  );
  assert.doesNotMatch(bare.out, /still running/);
  const guarded = await run();
  assert.equal(guarded.code, 2, guarded.err);
  assert.equal(guarded.err, `${DRIVER_FAULT_MESSAGE}\n`);
  assert.doesNotMatch(guarded.out, /still running/);
});
