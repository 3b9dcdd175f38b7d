/**
 * The estate on disk under crashes and races, with real processes: a publisher killed with
 * SIGKILL at a random moment (half the time any moment of its publish, half the time moments
 * after it starts writing files, where a non-atomic write would be caught half-done), and two
 * publishers released at once by a barrier.
 */
import assert from "node:assert/strict";
import { PublishError, type ToolSpec } from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { largeSchema, lookup, PUBLISHER, ROOT, withTempDir } from "./_store_fixtures.ts";

/** A child publisher whose stdout is read line by line. */
class Publisher {
  readonly #child: Deno.ChildProcess;
  readonly #lines: ReadableStreamDefaultReader<string>;
  readonly #stderr: Promise<string>;
  #buffer = "";

  constructor(args: string[]) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", PUBLISHER, ...args],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#lines = this.#child.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    this.#stderr = new Response(this.#child.stderr).text();
  }

  /** The next line of output, or undefined at the end. */
  async line(): Promise<string | undefined> {
    for (;;) {
      const nl = this.#buffer.indexOf("\n");
      if (nl !== -1) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        return line;
      }
      const { value, done } = await this.#lines.read();
      if (done) return undefined;
      this.#buffer += value;
    }
  }

  /** Waits for a given line, failing with the child's stderr if it never comes. */
  async expect(wanted: string): Promise<void> {
    const got = await this.line();
    if (got !== wanted) {
      assert.fail(
        `expected ${wanted} from the publisher, got ${got}; stderr: ${await this
          .#stderr}`,
      );
    }
  }

  /** Resolves when the child has exited. */
  get exited(): Promise<unknown> {
    return this.#child.status;
  }

  /** Kills the child with SIGKILL, unless it has already exited. */
  kill(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch (e) {
      if (!(e instanceof TypeError)) throw e; // "Child process has already terminated"
    }
  }

  /** Drains the output and waits for the exit. */
  async finish(): Promise<
    { rest: string[]; status: Deno.CommandStatus; stderr: string }
  > {
    const rest: string[] = [];
    for (let l = await this.line(); l !== undefined; l = await this.line()) {
      rest.push(l);
    }
    return {
      rest,
      status: await this.#child.status,
      stderr: await this.#stderr,
    };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves when a file other than the lock is created in a watched folder. */
async function firstFileCreated(watcher: Deno.FsWatcher): Promise<void> {
  for await (const event of watcher) {
    if (
      event.kind === "create" && event.paths.some((p) => !p.endsWith("/.lock"))
    ) return;
  }
}

/** A fresh estate with payments.lookup@1.0.0 published. */
function freshEstate(dir: string): void {
  Deno.mkdirSync(dir);
  EstateDir.open(dir).publish(lookup("1.0.0"));
}

Deno.test("a publish killed at a random moment leaves the whole version or nothing, and the estate stays usable", async () => {
  await withTempDir(async (tmp) => {
    // About 4 MB of version file, mostly descriptions: writing and fsyncing it takes a while.
    const big: ToolSpec = lookup("2.0.0", {
      inputSchema: largeSchema(2_000, "crash", 2_000),
    });
    const specFile = `${tmp}/big.json`;
    Deno.writeTextFileSync(specFile, JSON.stringify(big));

    // How long a publish takes, from "start" to exit, to spread the kills over it.
    freshEstate(`${tmp}/calibrate`);
    const timer = new Publisher([`${tmp}/calibrate`, specFile]);
    await timer.expect("ready");
    await timer.expect("start");
    const t0 = performance.now();
    const { rest } = await timer.finish();
    const duration = performance.now() - t0;
    assert.deepEqual(rest, ['{"status":"published"}']);

    for (let round = 0; round < 15; round++) {
      const dir = `${tmp}/round-${round}`;
      freshEstate(dir);
      const watcher = Deno.watchFs(`${dir}/tools/payments.lookup`, {
        recursive: false,
      });
      const child = new Publisher([dir, specFile]);
      await child.expect("ready");
      await child.expect("start");
      if (round % 2 === 0) {
        await sleep(duration * (0.1 + Math.random()));
      } else {
        await Promise.race([firstFileCreated(watcher), child.exited]);
        await sleep(Math.random() * 20);
      }
      child.kill();
      watcher.close();
      const { status } = await child.finish();

      const estate = EstateDir.open(dir); // must not throw
      const versions = estate.registry.versions("payments.lookup");
      const landed = versions.some((r) => r.spec.version === "2.0.0");
      if (landed) {
        assert.deepEqual(
          versions[1].spec,
          big,
          `round ${round}: a partial version`,
        );
        assert.equal(versions[1].state, "active");
      } else {
        assert.deepEqual(versions.map((r) => r.spec.version), ["1.0.0"]);
      }
      // The publish can be repeated from here; a stale lock of the killed child does not block it.
      const result = estate.publish(specFile);
      assert.equal(
        result.status,
        landed ? "already-published" : "published",
        `round ${round} (exit ${status.code}, signal ${status.signal})`,
      );
      const after = EstateDir.open(dir).registry.versions("payments.lookup");
      assert.deepEqual(after[1].spec, big);
      assert.deepEqual(after[1].history.map((h) => h.state), ["active"]);
      const names = [...Deno.readDirSync(`${dir}/tools/payments.lookup`)].map((
        e,
      ) => e.name).sort();
      assert.deepEqual(
        names,
        ["1.0.0.json", "2.0.0.json", "lifecycle.json"],
        `round ${round}`,
      );
    }
  });
});

Deno.test("two processes publishing the same version with different content: exactly one wins, the other is refused as a republish", async () => {
  await withTempDir(async (tmp) => {
    const specs = ["A", "B"].map((tag) => {
      const spec = lookup("2.0.0", { inputSchema: largeSchema(2_000, tag) });
      const file = `${tmp}/spec-${tag}.json`;
      Deno.writeTextFileSync(file, JSON.stringify(spec));
      return { spec, file };
    });
    for (let round = 0; round < 3; round++) {
      const dir = `${tmp}/round-${round}`;
      freshEstate(dir);
      const go = `${tmp}/go-${round}`;
      const children = specs.map(({ file }) => new Publisher([dir, file, go]));
      for (const c of children) await c.expect("ready");
      Deno.writeTextFileSync(go, "");
      const results = await Promise.all(children.map(async (c) => {
        const { rest, stderr } = await c.finish();
        assert.equal(rest[0], "start", stderr);
        return JSON.parse(rest[1]) as {
          status?: string;
          error?: string;
          refusal?: string;
          message?: string;
        };
      }));
      const winners = results.flatMap((r, i) => r.status === "published" ? [i] : []);
      assert.equal(winners.length, 1, JSON.stringify(results));
      const loser = results[1 - winners[0]];
      assert.equal(loser.error, "PublishError", JSON.stringify(loser));
      assert.equal(loser.refusal, "republish");
      assert.match(
        loser.message!,
        /Cannot publish payments\.lookup@2\.0\.0: 2\.0\.0 is already published with different content/,
      );

      const estate = EstateDir.open(dir);
      const versions = estate.registry.versions("payments.lookup");
      assert.deepEqual(versions[1].spec, specs[winners[0]].spec);
      assert.equal(versions[1].history.length, 1);
      assert.throws(
        () => estate.publish(specs[1 - winners[0]].file),
        (e: unknown) => e instanceof PublishError && e.refusal === "republish",
      );
    }
  });
});
