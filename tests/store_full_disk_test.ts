/**
 * Stored calls under failing disks: an append that fails leaves `calls.jsonl` as it was; a torn
 * last line (an append that never finished) is reported, not an error, and the next append
 * removes it; a bad line in the middle stays an error; no file of the store is followed through
 * a symbolic link. One test fills a real 64 KiB tmpfs (it needs to mount one: root on Linux).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { runCli } from "../lib/cli/main.ts";
import { CorpusError, EstateDir, readCallsFile, type TornLine } from "../lib/store/mod.ts";
import { appendToCallsFile } from "../lib/store/_append.ts";
import { storedCallLine } from "../lib/store/_stored_call.ts";
import type { StoredCall } from "../mod.ts";
import { call, clock, lookup, withTempDir } from "./_store_fixtures.ts";

const TOOL = "payments.lookup";

function calls(from: number, n: number, principal = "ops-bot"): StoredCall[] {
  return Array.from(
    { length: n },
    (_, i) =>
      call(
        "1.0.0",
        { reference: `PMT-${String(from + i).padStart(6, "0")}` },
        principal,
      ),
  );
}

function lines(list: StoredCall[]): string {
  return list.map((c) => storedCallLine(c) + "\n").join("");
}

async function cli(
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  let out = "", err = "";
  const code = await runCli(args, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    cwd: Deno.cwd(),
  });
  return { code, out, err };
}

Deno.test("a torn last line is reported as an unacknowledged write, not an error: replay and publish go on, and the next append removes it", async () => {
  await withTempDir(async (dir) => {
    const torn: TornLine[] = [];
    const estate = EstateDir.open(dir, {
      now: clock(),
      onTornLine: (t) => torn.push(t),
    });
    estate.publish(lookup("1.0.0"));
    const file = `${dir}/tools/${TOOL}/calls.jsonl`;
    const kept = calls(1, 3);
    const cut = storedCallLine(calls(4, 1)[0]).slice(0, 37); // an append cut short by a full disk
    Deno.writeTextFileSync(file, lines(kept) + cut);

    // Readers: the acknowledged calls, and a report of the torn line.
    const seen: TornLine[] = [];
    assert.deepEqual([
      ...readCallsFile(file, { onTornLine: (t) => seen.push(t) }),
    ], kept);
    assert.deepEqual(seen, [{ file, line: 4, bytes: 37, removed: false }]);
    assert.deepEqual([...estate.readCalls(TOOL)], kept);
    assert.deepEqual(torn, [{ file, line: 4, bytes: 37, removed: false }]);
    // A torn multi-byte character is a torn line too, not invalid UTF-8.
    const euro = new TextEncoder().encode(
      '{"version":"1.0.0","arguments":{"reference":"€',
    );
    Deno.writeFileSync(
      file,
      new Uint8Array([
        ...new TextEncoder().encode(lines(kept)),
        ...euro.subarray(0, euro.length - 1),
      ]),
    );
    assert.deepEqual([...readCallsFile(file, { bufferSize: 7 })], kept);
    Deno.writeTextFileSync(file, lines(kept) + cut);

    // replay and a non-major publish go on (they exited 2 before), saying what they skipped.
    const replay = await cli(["replay", TOOL, "--estate", dir]);
    assert.equal(replay.code, 0, replay.err);
    assert.match(replay.out, /replayed 3 of 3 stored calls/);
    assert.match(
      replay.err,
      /calls\.jsonl:4: the last line is torn \(37 bytes without a newline: an append that never finished\); not read, and the next append removes it/,
    );
    assert.equal(
      estate.publish(lookup("1.0.1", { title: "Retitled" })).status,
      "published",
    );

    // The next append removes it, and says so.
    torn.length = 0;
    const more = calls(10, 2);
    assert.equal(estate.appendCalls(TOOL, more), 2);
    assert.equal(Deno.readTextFileSync(file), lines([...kept, ...more]));
    assert.deepEqual(torn, [{ file, line: 4, bytes: 37, removed: true }]);
    assert.deepEqual([...estate.readCalls(TOOL)], [...kept, ...more]);
  });
});

Deno.test("a last line without its newline that is a whole stored call is kept; a bad line in the middle stays an error naming file and line", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    estate.publish(lookup("1.0.0"));
    const file = `${dir}/tools/${TOOL}/calls.jsonl`;
    const [a, b, c] = calls(1, 3);
    Deno.writeTextFileSync(file, lines([a]) + storedCallLine(b)); // hand-written, no final newline
    assert.deepEqual([...estate.readCalls(TOOL)], [a, b]);
    estate.appendCalls(TOOL, [c]);
    assert.equal(Deno.readTextFileSync(file), lines([a, b, c]));

    // What the old appender made of a torn line: more lines after it. That is damage, not a torn
    // write, and it is reported where it is.
    Deno.writeTextFileSync(
      file,
      lines([a]) + '{"version":"1.0.0","argu\n' + lines([c]),
    );
    assert.throws(
      () => [...estate.readCalls(TOOL)],
      (e: unknown) =>
        e instanceof CorpusError && e.file === file && e.line === 2 &&
        /not valid JSON/.test(e.message),
    );
    // An append looks only at the last line: it goes on, and the damage stays where it is.
    estate.appendCalls(TOOL, [a]);
    assert.throws(
      () => [...estate.readCalls(TOOL)],
      (e: unknown) => e instanceof CorpusError && e.line === 2,
    );
  });
});

Deno.test("an append that fails (ENOSPC mid-write, EIO at fsync) leaves calls.jsonl exactly as it was, and the error says so", async () => {
  await withTempDir((dir) => {
    const file = `${dir}/calls.jsonl`;
    const kept = lines(calls(1, 3));
    for (
      const [what, io, code] of [
        [
          "half a write, then ENOSPC",
          {
            write: (
              fd: number,
              bytes: Uint8Array,
              offset: number,
              length: number,
            ) => {
              fs.writeSync(fd, bytes, offset, Math.min(length, 45));
              throw Object.assign(
                new Error("ENOSPC: no space left on device, write"),
                {
                  code: "ENOSPC",
                },
              );
            },
          },
          "ENOSPC",
        ],
        [
          "a short write, then EIO",
          {
            write: (() => {
              let n = 0;
              return (
                fd: number,
                bytes: Uint8Array,
                offset: number,
                length: number,
              ) => {
                if (n++ === 0) {
                  return fs.writeSync(fd, bytes, offset, Math.min(length, 10));
                }
                throw Object.assign(new Error("EIO: i/o error, write"), {
                  code: "EIO",
                });
              };
            })(),
          },
          "EIO",
        ],
        [
          "the whole write, then EIO at fsync",
          {
            fsync: () => {
              throw Object.assign(new Error("EIO: i/o error, fsync"), {
                code: "EIO",
              });
            },
          },
          "EIO",
        ],
      ] as const
    ) {
      Deno.writeTextFileSync(file, kept);
      assert.throws(
        () => appendToCallsFile(file, lines(calls(10, 4)), { io }),
        (e: unknown) => {
          assert.ok(e instanceof Error, what);
          assert.equal((e as { code?: string }).code, code, what);
          assert.match(
            e.message,
            new RegExp(
              `${code}.*calls\\.jsonl is left as it was \\(${kept.length} bytes\\)`,
            ),
            what,
          );
          return true;
        },
      );
      assert.equal(Deno.readTextFileSync(file), kept, what);
      assert.deepEqual([...readCallsFile(file)].length, 3, what);
    }
    // And with a disk that works again, the append goes through.
    appendToCallsFile(file, lines(calls(10, 4)));
    assert.equal(Deno.readTextFileSync(file), kept + lines(calls(10, 4)));
  });
});

Deno.test("the store never follows a symbolic link: calls.jsonl, a version file, lifecycle.json and a tool folder are refused, naming the link", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    estate.publish(lookup("1.0.0"));
    const tool = `${dir}/tools/${TOOL}`;
    const outside = `${dir}/outside.jsonl`;
    const original = lines(calls(1, 1));
    Deno.writeTextFileSync(outside, original);
    Deno.symlinkSync(outside, `${tool}/calls.jsonl`);
    const symlink = /is a symbolic link; the estate never follows one/;
    assert.throws(
      () => estate.appendCalls(TOOL, calls(2, 1)),
      (e: unknown) =>
        e instanceof CorpusError && e.file === `${tool}/calls.jsonl` &&
        symlink.test(e.message),
    );
    assert.throws(
      () => [...estate.readCalls(TOOL)],
      (e: unknown) => e instanceof CorpusError && symlink.test(e.message),
    );
    assert.equal(Deno.readTextFileSync(outside), original);
    Deno.removeSync(`${tool}/calls.jsonl`);

    for (const name of ["lifecycle.json", "1.0.0.json"]) {
      const real = `${dir}/${name}`;
      Deno.renameSync(`${tool}/${name}`, real);
      Deno.symlinkSync(real, `${tool}/${name}`);
      const before = Deno.readTextFileSync(real);
      assert.throws(
        () => EstateDir.open(dir),
        (e: unknown) =>
          e instanceof CorpusError && e.file === `${tool}/${name}` &&
          symlink.test(e.message),
        name,
      );
      assert.throws(() => estate.deprecate(TOOL, "1.0.0"), CorpusError, name);
      assert.equal(Deno.readTextFileSync(real), before, name);
      Deno.removeSync(`${tool}/${name}`);
      Deno.renameSync(real, `${tool}/${name}`);
    }

    // A tool folder that is a link to a folder elsewhere is not written through.
    Deno.mkdirSync(`${dir}/elsewhere`);
    Deno.symlinkSync(`${dir}/elsewhere`, `${dir}/tools/fx.quote`);
    assert.throws(
      () => estate.publish(lookup("1.0.0", { name: "fx.quote" })),
      (e: unknown) => e instanceof CorpusError && symlink.test(e.message),
    );
    assert.deepEqual([...Deno.readDirSync(`${dir}/elsewhere`)], []);
  });
});

/** Whether this process may mount a tmpfs (root on Linux); why not, when it may not. */
function tmpfsAllowed(): { ok: true } | { ok: false; reason: string } {
  if (Deno.build.os !== "linux") {
    return { ok: false, reason: "tmpfs is a Linux file system" };
  }
  let dir: string | undefined;
  try {
    dir = Deno.makeTempDirSync({ prefix: "tmpfs-probe-" });
    const mount = new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir],
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    if (!mount.success) {
      return {
        ok: false,
        reason: `mount -t tmpfs failed: ${new TextDecoder().decode(mount.stderr).trim()}`,
      };
    }
    new Deno.Command("umount", { args: [dir] }).outputSync();
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: `cannot run mount: ${(e as Error).message}` };
  } finally {
    if (dir) Deno.removeSync(dir);
  }
}

const TMPFS = tmpfsAllowed();
if (!TMPFS.ok) {
  console.warn(
    `store_full_disk_test: skipping the tmpfs test: ${TMPFS.reason}`,
  );
}

Deno.test({
  name:
    "stored calls survive a full disk (64 KiB tmpfs): appends fail until space is freed, calls.jsonl keeps exactly the acknowledged calls, replay works, and appends and publishes go on after",
  ignore: !TMPFS.ok,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "estate-tmpfs-" });
    const run = (cmd: string, args: string[]) => {
      const o = new Deno.Command(cmd, { args, stderr: "piped" }).outputSync();
      assert.ok(
        o.success,
        `${cmd} ${args.join(" ")}: ${new TextDecoder().decode(o.stderr)}`,
      );
    };
    run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]);
    try {
      const estate = EstateDir.open(dir, { now: clock() });
      estate.publish(lookup("1.0.0"));
      const filler = `${dir}/filler.bin`; // space to free later
      Deno.writeFileSync(filler, new Uint8Array(12 * 1024));
      const file = `${dir}/tools/${TOOL}/calls.jsonl`;

      const acknowledged: StoredCall[] = [];
      let failure: Error | undefined;
      let refused = 0;
      for (let i = 0; refused < 5; i++) {
        const batch = calls(i * 7, 7, i % 2 ? "teller" : "ops-bot");
        try {
          estate.appendCalls(TOOL, batch);
          acknowledged.push(...batch);
        } catch (e) {
          failure ??= e as Error;
          refused++; // a full disk stays full: every append is refused, each leaving the file
          assert.equal(
            Deno.statSync(file).size,
            lines(acknowledged).length,
            `after refusal ${refused}`,
          );
        }
        assert.ok(i < 10_000, "the disk never filled");
      }
      console.log(
        `${acknowledged.length} calls (${
          lines(acknowledged).length
        } bytes) fit; then: ${failure?.message}`,
      );
      assert.equal(
        (failure as { code?: string }).code,
        "ENOSPC",
        failure?.message ?? "no error",
      );
      assert.equal(Deno.readTextFileSync(file), lines(acknowledged));
      assert.deepEqual([...estate.readCalls(TOOL)], acknowledged);
      const replay = await cli(["replay", TOOL, "--estate", dir]);
      assert.equal(replay.code, 0, replay.err);
      assert.match(
        replay.out,
        new RegExp(
          `replayed ${acknowledged.length} of ${acknowledged.length} stored calls`,
        ),
      );
      assert.equal(replay.err, "");

      Deno.removeSync(filler);
      const after = calls(900_000, 3);
      assert.equal(estate.appendCalls(TOOL, after), 3);
      acknowledged.push(...after);
      assert.deepEqual([...EstateDir.open(dir).readCalls(TOOL)], acknowledged);
      assert.equal(
        estate.publish(lookup("1.0.1", { title: "Retitled" })).status,
        "published",
      );
    } finally {
      run("umount", [dir]);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
