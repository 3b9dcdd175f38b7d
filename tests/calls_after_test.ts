/**
 * The folder store's `callsAfter()` (`_calls_after.ts`): what only a file has — a torn last line,
 * a file rewritten or replaced under a cursor, a symbolic link, a bad line past the cursor, reads
 * that start at the cursor's byte — and, as a law, that batches of any size read with any buffer
 * concatenate to `readCallsFile`.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import fc from "fast-check";
import type { StoredCall } from "../mod.ts";
import { CorpusError, EstateDir, readCallsFile } from "../lib/store/mod.ts";
import { readCallsAfter } from "../lib/store/_calls_after.ts";
import { call, lookup, withTempDir } from "./_store_fixtures.ts";

const TOOL = "payments.lookup";
const line = (c: StoredCall): string => JSON.stringify(c) + "\n";
const calls = (n: number, from = 0): StoredCall[] =>
  Array.from({ length: n }, (_, i) => call("1.0.0", { reference: `PMT-${from + i}` }));

/** An estate with `payments.lookup@1.0.0` published; its `calls.jsonl` path. */
async function published(dir: string): Promise<[EstateDir, string]> {
  const estate = EstateDir.open(dir);
  await estate.publish(lookup("1.0.0"));
  return [estate, `${dir}/tools/${TOOL}/calls.jsonl`];
}

Deno.test("callsAfter() leaves a torn last line unread, and reads it once its newline is written", async () => {
  await withTempDir(async (dir) => {
    const [estate, file] = await published(dir);
    estate.appendCalls(TOOL, calls(2));
    const whole = line(calls(1, 2)[0]);
    fs.appendFileSync(file, whole.slice(0, 20));
    const first = estate.callsAfter(TOOL);
    assert.deepEqual(first.calls, calls(2));
    assert.equal(first.more, false);
    // The rest of the line arrives (a slow append finishing).
    fs.appendFileSync(file, whole.slice(20));
    const second = estate.callsAfter(TOOL, first.cursor);
    assert.deepEqual([second.calls, second.restarted], [calls(1, 2), false]);
    // A whole call without its newline (a hand-written last line) waits for its newline too.
    fs.appendFileSync(file, line(calls(1, 3)[0]).trimEnd());
    const third = estate.callsAfter(TOOL, second.cursor);
    assert.deepEqual([third.calls, third.cursor], [[], second.cursor]);
    estate.appendCalls(TOOL, calls(1, 4)); // terminates it, then appends
    assert.deepEqual(estate.callsAfter(TOOL, third.cursor).calls, calls(2, 3));
  });
});

Deno.test("callsAfter() past a torn line that an append removes reads on from the cursor, not restarted", async () => {
  await withTempDir(async (dir) => {
    const [estate, file] = await published(dir);
    estate.appendCalls(TOOL, calls(2));
    fs.appendFileSync(file, '{"version":"1.0.0","argu');
    const first = estate.callsAfter(TOOL);
    assert.deepEqual(first.calls, calls(2));
    estate.appendCalls(TOOL, calls(1, 2)); // removes the torn line first
    const second = estate.callsAfter(TOOL, first.cursor);
    assert.deepEqual([second.calls, second.restarted], [calls(1, 2), false]);
  });
});

Deno.test("callsAfter() restarts when calls.jsonl was rewritten shorter, replaced, rewritten in place, or removed", async () => {
  await withTempDir(async (dir) => {
    const [estate, file] = await published(dir);
    estate.appendCalls(TOOL, calls(3));
    const at = estate.callsAfter(TOOL).cursor;

    // Rewritten shorter (same file, truncated).
    fs.truncateSync(file, 0);
    fs.appendFileSync(file, line(calls(1, 10)[0]));
    let read = estate.callsAfter(TOOL, at);
    assert.deepEqual([read.calls, read.restarted], [calls(1, 10), true]);

    // Replaced by another file (rename over it), longer than the cursor's offset.
    const before = estate.callsAfter(TOOL).cursor;
    fs.writeFileSync(`${file}.new`, calls(5, 20).map(line).join(""));
    fs.renameSync(`${file}.new`, file);
    read = estate.callsAfter(TOOL, before);
    assert.deepEqual([read.calls, read.restarted], [calls(5, 20), true]);

    // Rewritten in place, same length, different bytes before the cursor.
    const cursor = read.cursor;
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, text.replace("PMT-24", "PMT-99"));
    read = estate.callsAfter(TOOL, cursor);
    assert.equal(read.restarted, true);
    assert.deepEqual(read.calls.at(-1)?.arguments, { reference: "PMT-99" });

    // Removed: no calls, and what was counted is gone.
    fs.rmSync(file);
    read = estate.callsAfter(TOOL, read.cursor);
    assert.deepEqual([read.calls, read.restarted, read.more], [[], true, false]);
    // Its cursor (the start) then reads the first call appended, not restarted.
    estate.appendCalls(TOOL, calls(1, 30));
    const next = estate.callsAfter(TOOL, read.cursor);
    assert.deepEqual([next.calls, next.restarted], [calls(1, 30), false]);
  });
});

Deno.test("callsAfter() reads from the cursor's byte: a line before it is not read again", async () => {
  await withTempDir(async (dir) => {
    const [estate, file] = await published(dir);
    estate.appendCalls(TOOL, calls(20));
    const first = estate.callsAfter(TOOL);
    // Break the first line in place (same length): far before the cursor, so unseen by a reader
    // that starts there, while a reader from the start refuses it.
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, "#" + text.slice(1));
    assert.throws(() => [...estate.readCalls(TOOL)], CorpusError);
    estate.appendCalls(TOOL, calls(1, 20));
    assert.deepEqual(estate.callsAfter(TOOL, first.cursor).calls, calls(1, 20));
  });
});

Deno.test("callsAfter() names the file, line and byte offset of a bad line past the cursor", async () => {
  await withTempDir(async (dir) => {
    const [estate, file] = await published(dir);
    estate.appendCalls(TOOL, calls(2));
    const first = estate.callsAfter(TOOL);
    const offset = fs.statSync(file).size;
    fs.appendFileSync(file, line(calls(1, 2)[0]) + '{"version":"1.0.0"}\n');
    assert.throws(
      () => estate.callsAfter(TOOL, first.cursor),
      (e: unknown) =>
        e instanceof CorpusError && e.file === file && e.line === 4 &&
        e.message.startsWith(`${file}:4: not a stored call: arguments is required`) &&
        e.message.includes(`(the line at byte ${offset + line(calls(1, 2)[0]).length})`),
    );
    fs.writeFileSync(file, calls(1).map(line).join("") + "\n");
    assert.throws(
      () => estate.callsAfter(TOOL),
      (e: unknown) => e instanceof CorpusError && e.line === 2 && /empty line/.test(e.message),
    );
    fs.writeFileSync(file, "{nope\n");
    assert.throws(
      () => estate.callsAfter(TOOL),
      (e: unknown) =>
        e instanceof CorpusError && e.line === 1 && e.column === 2 &&
        /not valid JSON/.test(e.message),
    );
  });
});

Deno.test("callsAfter() accepts CRLF line ends and a byte order mark, as readCallsFile does", async () => {
  await withTempDir(async (dir) => {
    const [estate, file] = await published(dir);
    fs.writeFileSync(file, "\uFEFF" + calls(3).map((c) => JSON.stringify(c) + "\r\n").join(""));
    const read = estate.callsAfter(TOOL, undefined, { limit: 1 });
    assert.deepEqual(read.calls, [...readCallsFile(file)].slice(0, 1));
    assert.deepEqual(estate.callsAfter(TOOL, read.cursor).calls, calls(2, 1));
  });
});

Deno.test("callsAfter() refuses a calls.jsonl that is a symbolic link", async () => {
  await withTempDir(async (dir) => {
    const [estate, file] = await published(dir);
    const outside = `${dir}/outside.jsonl`;
    fs.writeFileSync(outside, calls(1).map(line).join(""));
    fs.symlinkSync(outside, file);
    assert.throws(
      () => estate.callsAfter(TOOL),
      (e: unknown) =>
        e instanceof CorpusError &&
        /is a symbolic link; the estate never follows one/.test(e.message),
    );
  });
});

Deno.test("callsAfter() batches of any limit, read with any buffer across any appends, concatenate to readCallsFile", async () => {
  await withTempDir((dir) => {
    let run = 0;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 300 }),
        (appends, limit, bufferSize) => {
          const file = `${dir}/calls-${run++}.jsonl`;
          let cursor: string | undefined;
          const read: StoredCall[] = [];
          let n = 0;
          for (const count of appends) {
            // Arguments of varied length, some longer than the buffer.
            const batch = Array.from(
              { length: count },
              (_, i) => call("1.0.0", { reference: `PMT-${n + i}`.padEnd(((n + i) * 37) % 200) }),
            );
            n += count;
            fs.appendFileSync(file, batch.map(line).join(""));
            for (;;) {
              const got = readCallsAfter(file, cursor, { limit, bufferSize });
              assert.equal(got.restarted, false);
              assert.ok(got.calls.length <= limit);
              assert.equal(got.more, got.calls.length === limit && read.length + limit < n);
              read.push(...got.calls);
              cursor = got.cursor;
              if (!got.more) break;
            }
          }
          assert.deepEqual(read, [...readCallsFile(file)]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
