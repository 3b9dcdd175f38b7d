/**
 * The command line over an estate in PostgreSQL answers as it does over the folder: the same
 * commands on a copy of the example estate and on that estate migrated into a real PostgreSQL
 * (`_postgres.ts`) print the same, and write the same; `estate migrate --to` alone brings the
 * schema up to date; `estate principals set` replaces the principals; `estate settings set` stores
 * estate.json and rules.json, which publish and check then honour; a bad URL is one line.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { type AuditRecord, verifyAuditChain } from "../mod.ts";
import { runCli } from "../lib/cli/main.ts";
import { MIGRATION_FILES } from "../lib/store/pg/migrate.ts";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";
import { ROOT } from "./_serve.ts";

const skip = postgresSkipReason();
const NOW = () => new Date("2026-12-01T12:00:00Z");

async function cli(
  args: string[],
  cwd: string,
): Promise<{ code: number; out: string }> {
  let out = "";
  const code = await runCli(args, {
    stdout: (t) => (out += t),
    stderr: (t) => (out += t),
    isTerminal: false,
    cwd,
    now: NOW,
  });
  return { code, out };
}

Deno.test({
  name: skip
    ? `[postgres] the CLI over a database estate answers as over the folder (ignored: ${skip})`
    : "[postgres] the CLI over a database estate answers as over the folder; migrate, export, principals set, settings set",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const pg = await startPostgres();
    const work = fs.mkdtempSync(
      path.join(Deno.makeTempDirSync(), "cli-store-"),
    );
    try {
      const url = await pg.createDatabase();
      const folder = path.join(work, "estate");
      fs.cpSync(path.join(ROOT, "corpus"), folder, { recursive: true });

      // The schema alone, then again: nothing left to apply.
      const schema = await cli(["migrate", "--to", url], work);
      assert.equal(schema.code, 0, schema.out);
      assert.match(
        schema.out,
        new RegExp(`applied ${MIGRATION_FILES.length} migrations`),
      );
      assert.match(
        (await cli(["migrate", "--to", url], work)).out,
        /is up to date/,
      );
      const copied = await cli(
        ["migrate", "--from", "estate", "--to", url],
        work,
      );
      assert.equal(copied.code, 0, copied.out);

      // The same commands, the same answers (with --json: no paths in them).
      const draft = path.join(work, "fx.tool.json");
      fs.copyFileSync(
        path.join(ROOT, "examples/drafts/fx.quote.tool.json"),
        draft,
      );
      const both = async (args: string[]) => {
        const a = await cli([...args, "--estate", "estate", "--json"], work);
        const b = await cli([...args, "--store", url, "--json"], work);
        assert.equal(b.code, a.code, `${args.join(" ")}: ${a.out}\n${b.out}`);
        const strip = (o: string) => o.replace(/"file": "[^"]*"/g, '"file": "…"');
        assert.deepEqual(
          JSON.parse(strip(b.out)),
          JSON.parse(strip(a.out)),
          args.join(" "),
        );
        return a;
      };

      // The settings files: set in the database, edited in the folder; the same answers.
      const none = await cli(["settings", "--store", url, "--json"], work);
      assert.equal(none.code, 0, none.out);
      assert.deepEqual(JSON.parse(none.out), {
        settings: [{ file: "estate.json", set: false }, {
          file: "rules.json",
          set: false,
        }],
      });
      await both(["settings"]);
      assert.equal((await both(["check", "fx.tool.json"])).code, 0); // backward: minor
      const settings = path.join(work, "settings");
      fs.mkdirSync(settings);
      const forward = '{\n\t"compatibility": "forward"\n}'; // no final newline: kept
      fs.writeFileSync(path.join(settings, "estate.json"), forward);
      const setMode = await cli([
        "settings",
        "set",
        "settings/estate.json",
        "--store",
        url,
      ], work);
      assert.equal(setMode.code, 0, setMode.out);
      assert.match(setMode.out, /^set estate\.json in postgres:\/\//);
      const inFolder = await cli(
        ["settings", "set", "settings/estate.json", "--estate", "estate"],
        work,
      );
      assert.equal(inFolder.code, 2);
      assert.match(inFolder.out, /in a folder estate, edit its estate\.json/);
      const other = await cli(
        ["settings", "set", "p.json", "--store", url],
        work,
      );
      assert.equal(other.code, 2);
      assert.match(
        other.out,
        /settings set takes estate\.json or rules\.json .*got p\.json/,
      );
      fs.mkdirSync(path.join(work, "bad"));
      fs.writeFileSync(
        path.join(work, "bad", "estate.json"),
        '{"compatibility": "both"}',
      );
      const bad = await cli([
        "settings",
        "set",
        "bad/estate.json",
        "--store",
        url,
      ], work);
      assert.equal(bad.code, 2);
      assert.match(
        bad.out,
        /cannot set estate\.json: compatibility must be one of backward/,
      );
      fs.writeFileSync(path.join(folder, "estate.json"), forward);
      // Under forward, an optional property added (a widening) is major: check and publish refuse.
      const widened = await both(["check", "fx.tool.json"]);
      assert.equal(widened.code, 1);
      assert.match(widened.out, /Under forward compatibility, change is major/);
      const rulesOf = (out: string) =>
        (JSON.parse(out).findings as { rule: string }[]).map((f) => f.rule);
      assert.deepEqual(rulesOf(widened.out), [
        "version-too-low",
        "property-added",
        "breaking-call",
      ]);
      assert.equal((await both(["publish", "fx.tool.json"])).code, 1);
      // rules.json turns property-added off; --rules FILE still wins.
      const rules = '{\n  "rules": { "property-added": "off" }\n}\n';
      fs.writeFileSync(path.join(settings, "rules.json"), rules);
      const setRules = await cli([
        "settings",
        "set",
        "settings/rules.json",
        "--store",
        url,
      ], work);
      assert.equal(setRules.code, 0, setRules.out);
      fs.writeFileSync(path.join(folder, "rules.json"), rules);
      const quiet = await both(["check", "fx.tool.json"]);
      assert.equal(quiet.code, 1);
      assert.deepEqual(rulesOf(quiet.out), ["version-too-low", "breaking-call"]);
      assert.doesNotMatch(
        (await cli(["check", "fx.tool.json", "--store", url], work)).out,
        /property-added/,
      );
      fs.writeFileSync(path.join(work, "loud.json"), '{"rules": {}}');
      assert.match(
        (await cli([
          "check",
          "fx.tool.json",
          "--store",
          url,
          "--rules",
          "loud.json",
        ], work)).out,
        /property-added/,
      );
      const listed = await both(["settings"]);
      assert.deepEqual(JSON.parse(listed.out), {
        settings: [{ file: "estate.json", set: true }, {
          file: "rules.json",
          set: true,
        }],
      });
      // Back to backward (a final newline this time), in both.
      const backward = '{"compatibility": "backward"}\n';
      fs.writeFileSync(path.join(settings, "estate.json"), backward);
      assert.equal(
        (await cli(
          ["settings", "set", "settings/estate.json", "--store", url],
          work,
        )).code,
        0,
      );
      fs.writeFileSync(path.join(folder, "estate.json"), backward);

      await both(["list"]);
      await both(["list", "--principal", "wholesale-operator"]);
      await both(["check", "fx.tool.json"]);
      await both(["replay", "payments.lookup"]);
      await both(["replay", "payments.lookup", "--schema", "fx.tool.json"]);
      await both(["impact", "payments.lookup@1.0.0"]);
      await both(["publish", "fx.tool.json"]);
      await both(["publish", "fx.tool.json"]); // already published, both
      await both(["deprecate", "payments.lookup@1.1.0", "--reason", "use 2.x"]);
      await both(["retire", "payments.lookup@1.1.0"]); // refused: it was called recently
      await both([
        "retire",
        "payments.lookup@1.1.0",
        "--now",
        "--reason",
        "cut",
        "--force",
      ]);
      await both(["list"]);
      await both(["servers"]);
      await both(["drift"]);
      await both(["principals"]);

      // Both estates now hold the same: the export is the folder, byte for byte.
      const exported = await cli(
        ["export", "--store", url, "--to", "exported"],
        work,
      );
      assert.equal(exported.code, 0, exported.out);
      const files = (dir: string) =>
        (fs.readdirSync(dir, { recursive: true }) as string[])
          .filter((f) =>
            fs.statSync(path.join(dir, f)).isFile() && f !== "README.md" &&
            !f.startsWith(".audit-lock/") // the audit log's lock: runtime, not estate
          )
          .sort();
      assert.deepEqual(files(path.join(work, "exported")), files(folder));
      assert.ok(
        files(folder).includes("estate.json") &&
          files(folder).includes("rules.json"),
      );
      // The audit logs hold the same events, each in its own chain (each store's clock).
      const events = async (dir: string) => {
        const records = fs.readFileSync(path.join(dir, "audit.jsonl"), "utf8").trimEnd()
          .split("\n").map((l) => JSON.parse(l) as AuditRecord);
        assert.equal((await verifyAuditChain(records)).ok, true, dir);
        // A database also records its settings set (a folder's are edits of files).
        return records.filter((r) => r.kind !== "settings" && r.kind !== "principals")
          .map(({ kind, tool, version, principal, detail }) =>
            JSON.stringify({ kind, tool, version, principal, detail })
          );
      };
      assert.deepEqual(await events(path.join(work, "exported")), await events(folder));
      for (const f of files(folder).filter((f) => f !== "audit.jsonl")) {
        assert.ok(
          fs.readFileSync(path.join(work, "exported", f)).equals(
            fs.readFileSync(path.join(folder, f)),
          ),
          f,
        );
      }

      // principals set: a database's principals.json; a folder's is edited instead.
      const principals = JSON.parse(
        fs.readFileSync(path.join(folder, "principals.json"), "utf8"),
      );
      fs.writeFileSync(
        path.join(work, "p.json"),
        JSON.stringify(principals.slice(0, 2), null, 2) + "\n",
      );
      const set = await cli(
        ["principals", "set", "p.json", "--store", url],
        work,
      );
      assert.equal(set.code, 0, set.out);
      assert.match(
        set.out,
        /^set 2 principals: retail-agent, wholesale-operator\n$/,
      );
      const folderSet = await cli([
        "principals",
        "set",
        "p.json",
        "--estate",
        "estate",
      ], work);
      assert.equal(folderSet.code, 2);
      assert.match(folderSet.out, /edit its principals\.json/);

      // A database that cannot be reached, and a URL that is not one: one line, exit 2.
      const down = await cli([
        "list",
        "--store",
        "postgres://estate@127.0.0.1:1/x",
      ], work);
      assert.equal(down.code, 2);
      assert.match(
        down.out,
        /^estate: cannot open the estate at postgres:\/\/estate@127\.0\.0\.1:1\/x: /,
      );
      assert.equal(down.out.trim().split("\n").length, 1);
      const secret = await cli([
        "list",
        "--store",
        "postgres://u:hunter2@127.0.0.1:1/x",
      ], work);
      assert.doesNotMatch(secret.out, /hunter2/);
      const both2 = await cli(
        ["list", "--store", url, "--estate", "estate"],
        work,
      );
      assert.equal(both2.code, 2);
      assert.match(both2.out, /--store and --estate exclude each other/);
      // Copying into a database that already holds an estate is refused, and changes nothing.
      const again = await cli(
        ["migrate", "--from", "estate", "--to", url],
        work,
      );
      assert.equal(again.code, 1);
      assert.match(again.out, /already holds an estate/);
    } finally {
      await pg.stop();
      fs.rmSync(path.dirname(work), { recursive: true, force: true });
    }
  },
});
