/**
 * Readers beside writers: while other processes publish, every reader of the estate — `estate
 * list`, `EstateDir.open`, and the `refresh()` that `estate serve` runs when the folder changes —
 * sees a consistent estate, without taking the writers' lock.
 */
import assert from "node:assert/strict";
import { runCli } from "../lib/cli/main.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { lookup, ROOT, withTempDir } from "./_store_fixtures.ts";

const LOOP = new URL("./_store_publish_loop.ts", import.meta.url).pathname;
const PUBLISHES = 100;

Deno.test("readers never see a half-written estate: list, open and refresh beside two publish loops count zero errors, and no publish exits 2", async () => {
  await withTempDir(async (dir) => {
    const first = EstateDir.open(dir);
    first.publish(lookup("1.0.0"));
    first.publish(lookup("1.0.0", { name: "fx.quote" }));
    const server = EstateDir.open(dir); // a long-lived reader, as `estate serve` holds one
    const loops = ["payments.lookup", "fx.quote"].map((name) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", LOOP, dir, name, String(PUBLISHES)],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output()
    );
    let running = true;
    const finished = Promise.all(loops).finally(() => (running = false));
    const errors = { list: 0, open: 0, refresh: 0 };
    const first3: string[] = [];
    const note = (kind: keyof typeof errors, message: string) => {
      errors[kind]++;
      if (first3.length < 3) first3.push(`${kind}: ${message}`);
    };
    let reads = 0;
    while (running) {
      let err = "";
      const code = await runCli(["list", "--estate", dir], {
        stdout: () => {},
        stderr: (t) => (err += t),
        isTerminal: false,
        cwd: dir,
      });
      if (code !== 0) note("list", `exit ${code}: ${err.trim()}`);
      try {
        EstateDir.open(dir);
      } catch (e) {
        note("open", (e as Error).message);
      }
      try {
        server.refresh();
      } catch (e) {
        note("refresh", (e as Error).message);
      }
      reads++;
      await new Promise((r) => setTimeout(r, 0)); // let the children's exits be noticed
    }
    const outputs = await finished;
    const results = outputs.map((o) => {
      assert.equal(o.code, 0, new TextDecoder().decode(o.stderr));
      return JSON.parse(new TextDecoder().decode(o.stdout)) as {
        codes: Record<string, number>;
        errors: string[];
      };
    });
    console.log(
      `${reads} rounds of reads beside ${2 * PUBLISHES} publishes; reader errors ${
        JSON.stringify(errors)
      }; publish exit codes ${results.map((r) => JSON.stringify(r.codes)).join(" ")}`,
    );
    assert.deepEqual(
      errors,
      { list: 0, open: 0, refresh: 0 },
      first3.join("\n"),
    );
    for (const r of results) {
      assert.deepEqual(r.codes, { 0: PUBLISHES }, r.errors.join("\n"));
    }
    // The long-lived reader ends with what a fresh one sees.
    server.refresh();
    const fresh = EstateDir.open(dir).registry;
    for (const name of ["payments.lookup", "fx.quote"]) {
      assert.equal(fresh.versions(name).length, PUBLISHES + 1);
      assert.deepEqual(
        server.registry.versions(name).map((r) => r.spec.version),
        fresh.versions(name).map((r) => r.spec.version),
      );
    }
  });
});
