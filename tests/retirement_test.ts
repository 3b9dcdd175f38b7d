/**
 * Retirement that happens on its date (issue 10, part 7): the retire-after date is checked, the
 * retirement rules are enforced, a deprecated version past its date stops resolving everywhere at
 * that moment (registry, estate on disk, CLI, editor, server), and `impact` after retirement says
 * whose calls now fail. The clock is injected everywhere: tests move it instead of waiting.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { runCli } from "../lib/cli/main.ts";
import { EstateSnapshot } from "../extension/src/estate.ts";
import {
  type EstateEvent,
  LifecycleError,
  McpServer,
  META_VERSION_KEY,
  type Principal,
  RetirementError,
  type ServerTimers,
  type StoredCall,
  ToolRegistry,
} from "../mod.ts";
import { CorpusError, EstateDir } from "../lib/store/mod.ts";
import { ready } from "./_mcp_fixtures.ts";
import { lookup } from "./_store_fixtures.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;
/** The corpus deprecates payments.lookup@1.0.0 with retire-after 2027-03-31. */
const DUE = Date.parse("2027-04-01T00:00:00.000Z");
const LIFECYCLE = "tools/payments.lookup/lifecycle.json";

/** A clock the test moves. */
class Clock {
  constructor(public t: number) {}
  readonly date = (): Date => new Date(this.t);
  readonly ms = (): number => this.t;
}

/** Timers that fire only when the test moves the clock past them. */
class FakeTimers implements ServerTimers {
  readonly #pending = new Map<number, { at: number; fn: () => void }>();
  #id = 0;
  constructor(readonly clock: Clock) {}
  setTimeout(fn: () => void, ms: number): unknown {
    this.#pending.set(++this.#id, { at: this.clock.t + ms, fn });
    return this.#id;
  }
  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }
  get count(): number {
    return this.#pending.size;
  }
  /** Moves the clock to `t`, firing every timer due on the way, in order. */
  advance(t: number): void {
    for (;;) {
      const due = [...this.#pending].filter(([, p]) => p.at <= t).sort((a, b) => a[1].at - b[1].at);
      if (!due.length) break;
      const [id, p] = due[0];
      this.#pending.delete(id);
      this.clock.t = Math.max(this.clock.t, p.at);
      p.fn();
    }
    this.clock.t = t;
  }
}

async function cli(
  args: string[],
  cwd: string,
  now: () => Date,
): Promise<{ code: number; out: string; err: string }> {
  let out = "", err = "";
  const code = await runCli(args, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    cwd,
    now,
  });
  return { code, out, err };
}

/** A scratch copy of the example estate, at `<dir>/corpus`. */
async function withCorpus(
  fn: (dir: string) => void | Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "retire-" });
  try {
    fs.cpSync(CORPUS, path.join(dir, "corpus"), { recursive: true });
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function lifecycle(
  dir: string,
): Record<string, { state: string; at: string; reason?: string }[]> {
  return JSON.parse(
    fs.readFileSync(path.join(dir, "corpus", LIFECYCLE), "utf8"),
  );
}

Deno.test("estate deprecate --retire-after takes a calendar date after today (by the clock); the registry and lifecycle.json refuse others", async () => {
  await withCorpus(async (dir) => {
    const now = new Clock(Date.parse("2026-11-30T12:00:00Z")).date;
    for (
      const [date, problem] of [
        [
          "2027-02-30",
          /--retire-after must be a calendar date like 2027-03-31, got "2027-02-30"/,
        ],
        ["2027-3-31", /must be a calendar date/],
        [
          "2026-11-29",
          /retire-after date 2026-11-29 is not in the future \(today is 2026-11-30, UTC\)/,
        ],
        ["2026-11-30", /retire-after date 2026-11-30 is not in the future/],
      ] as const
    ) {
      const r = await cli(
        ["deprecate", "payments.lookup@1.1.0", "--retire-after", date],
        dir,
        now,
      );
      assert.equal(r.code, 2, `${date}: ${r.out}${r.err}`);
      assert.match(r.err, problem, date);
    }
    assert.equal(lifecycle(dir)["1.1.0"].length, 1, "nothing was written");
    const ok = await cli(
      ["deprecate", "payments.lookup@1.1.0", "--retire-after", "2026-12-01"],
      dir,
      now,
    );
    assert.equal(ok.code, 0, ok.err);

    // The registry holds the same rule, by its own clock.
    const registry = new ToolRegistry({ now });
    registry.publish(lookup("1.0.0"));
    assert.throws(
      () =>
        registry.deprecate("payments.lookup", "1.0.0", {
          retireAfter: "2026-02-30",
        }),
      (e: unknown) => e instanceof LifecycleError && /calendar date/.test(e.message),
    );
    assert.throws(
      () =>
        registry.deprecate("payments.lookup", "1.0.0", {
          retireAfter: "2026-11-30",
        }),
      /Cannot deprecate payments\.lookup@1\.0\.0: retire-after date 2026-11-30 is not in the future/,
    );

    // lifecycle.json holds only what the registry would have accepted when it was written.
    const file = path.join(dir, "corpus", LIFECYCLE);
    const text = fs.readFileSync(file, "utf8");
    for (
      const [bad, problem] of [["2027-02-30", /calendar date/], [
        "2026-08-31",
        /must be after the day it was set \(2026-09-01\)/,
      ]] as const
    ) {
      fs.writeFileSync(
        file,
        text.replace('"retireAfter": "2027-03-31"', `"retireAfter": "${bad}"`),
      );
      assert.throws(
        () => EstateDir.open(path.join(dir, "corpus")),
        (e: unknown) =>
          e instanceof CorpusError && e.file === file && e.line === 2 &&
          problem.test(e.message),
        bad,
      );
    }
  });
});

Deno.test("estate retire applies the rules: deprecated first and its date passed, or --now with a reason the record keeps; --force for the only active version or recent callers, saying who will break", async () => {
  await withCorpus(async (dir) => {
    const clock = new Clock(Date.parse("2026-11-30T12:00:00Z"));
    const run = (...args: string[]) => cli(args, dir, clock.date);

    // Active: deprecate first (or --now with a reason).
    let r = await run("retire", "payments.lookup@1.1.0");
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /Cannot retire payments\.lookup@1\.1\.0: it is active; deprecate it first/,
    );
    // Deprecated with a date: not before it.
    r = await run("retire", "payments.lookup@1.0.0");
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /Cannot retire payments\.lookup@1\.0\.0 before its retire-after date 2027-03-31: it retires by itself at 2027-04-01T00:00:00\.000Z/,
    );
    // --now needs a reason.
    r = await run("retire", "payments.lookup@1.0.0", "--now");
    assert.equal(r.code, 2);
    assert.match(r.err, /--now .* needs --reason TEXT/);
    assert.deepEqual(lifecycle(dir)["1.0.0"].map((e) => e.state), [
      "active",
      "deprecated",
    ]);

    // Early, with a reason: still refused while it has recent callers (the corpus's
    // wholesale-operator pinned it on 2026-11-10), saying who they are; --force goes ahead.
    r = await run(
      "retire",
      "payments.lookup@1.0.0",
      "--now",
      "--reason",
      "PSD3 cut-over",
    );
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /Cannot retire payments\.lookup@1\.0\.0: it was called 2 times in the last 30 days \(wholesale-operator 2\), and those callers would break; force it/,
    );
    assert.match(
      r.out,
      /\n {2}wholesale-operator +2 calls, last seen 2026-11-10T07:34:18\.171Z\n/,
    );
    assert.doesNotMatch(r.out, /it is the only active version/);
    r = await run(
      "retire",
      "payments.lookup@1.0.0",
      "--now",
      "--reason",
      "PSD3 cut-over",
      "--force",
    );
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(
      r.out,
      /^payments\.lookup@1\.0\.0 is now retired\n {2}2 calls from 1 principal in the last 30 days; their calls will fail:\n/,
    );
    assert.deepEqual(lifecycle(dir)["1.0.0"].at(-1), {
      state: "retired",
      at: "2026-11-30T12:00:00.000Z",
      reason: "PSD3 cut-over",
    });

    // The only active version of a tool: --force, and the report says who breaks.
    r = await run(
      "retire",
      "fx.quote@1.0.0",
      "--now",
      "--reason",
      "desk closed",
      "--recent-days",
      "0",
    );
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /it is the only active version of fx\.quote, so unpinned callers would get nothing; force it/,
    );
    assert.match(
      r.out,
      /fx\.quote@1\.0\.0 is the only active version of fx\.quote: unpinned calls find no version/,
    );
    // Called in the last 30 days (the corpus's last fx.quote call is 2026-11-29).
    r = await run(
      "retire",
      "fx.quote@1.0.0",
      "--now",
      "--reason",
      "desk closed",
      "--json",
    );
    assert.equal(r.code, 1);
    const refused = JSON.parse(r.out);
    assert.deepEqual(refused.refusals, ["only-active", "recent-calls"]);
    const calls = [
      ...EstateDir.open(path.join(dir, "corpus")).readCalls("fx.quote"),
    ];
    const since = clock.t - 30 * 86_400_000;
    const recent = calls.filter((c) => Date.parse(c.at) >= since);
    assert.ok(recent.length > 0);
    assert.equal(refused.impact.recent.calls, recent.length);
    assert.deepEqual(
      refused.impact.recent.callers.map((c: { principal: string }) => c.principal).sort(),
      [...new Set(recent.map((c) => c.principal))].sort(),
    );
    assert.match(
      refused.message,
      new RegExp(`called ${recent.length} times in the last 30 days`),
    );
    assert.deepEqual(lifecycle(dir)["1.0.0"].length, 3, "nothing more written");

    r = await run(
      "retire",
      "fx.quote@1.0.0",
      "--now",
      "--reason",
      "desk closed",
      "--force",
    );
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /^fx\.quote@1\.0\.0 is now retired\n/);
    assert.match(
      r.out,
      new RegExp(
        `${recent.length} calls? from \\d+ principals? in the last 30 days; their calls will fail`,
      ),
    );
    for (const p of new Set(recent.map((c) => c.principal))) {
      assert.match(r.out, new RegExp(`  ${p} `));
    }
    assert.equal((await run("retire", "fx.quote@1.0.0")).code, 1); // already retired
  });
});

Deno.test("a deprecated version stops resolving the moment its retire-after date passes: registry, CLI, editor and server agree, and list_changed goes to the sessions that could see it", async () => {
  await withCorpus(async (dir) => {
    const estateDir = path.join(dir, "corpus");
    const clock = new Clock(DUE - 60_000);
    const timers = new FakeTimers(clock);
    const estate = EstateDir.open(estateDir, { now: clock.date });
    const editor = EstateSnapshot.load(estateDir, { now: clock.date });
    const events: string[] = [];
    estate.registry.subscribe((e: EstateEvent) => events.push(`${e.type} ${e.name}@${e.version}`));
    const server = new McpServer({
      registry: estate.registry,
      handlerFor: (t) => () => ({ tool: t.name, version: t.version }),
      now: clock.ms,
      timers,
    });
    const principal = (id: string): Principal => estate.principal(id)!;
    const operatorNotes: unknown[] = [], retailNotes: unknown[] = [];
    const operator = await ready(
      server,
      principal("wholesale-operator"),
      "2025-11-25",
      operatorNotes,
    );
    await ready(server, principal("retail-agent"), "2025-11-25", retailNotes);
    assert.equal(timers.count, 1, "a timer is set for the retirement");
    const pinned = () =>
      server.handle({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "payments.lookup",
          arguments: { reference: "PMT-000001" },
          _meta: { [META_VERSION_KEY]: "1.0.0" },
        },
      }, operator);
    const state = async () => ({
      registry: estate.registry.versions("payments.lookup")[0].state,
      resolves: estate.registry.resolve("payments.lookup", "1.0.0")?.version,
      editor: editor.registry.versions("payments.lookup")[0].state,
      cli: await cli(
        ["list", "--estate", estateDir, "--json"],
        dir,
        clock.date,
      ),
    });

    // A millisecond before: deprecated, still resolving by pin, everywhere.
    timers.advance(DUE - 1);
    let now = await state();
    assert.deepEqual([now.registry, now.resolves, now.editor], [
      "deprecated",
      "1.0.0",
      "deprecated",
    ]);
    assert.deepEqual(
      JSON.parse(now.cli.out).tools.find((t: { name: string }) => t.name === "payments.lookup")
        .versions[0],
      { version: "1.0.0", state: "deprecated" },
    );
    const before = await pinned();
    assert.ok(before && "result" in before, JSON.stringify(before));
    assert.equal(
      (before.result as { structuredContent: { version: string } })
        .structuredContent.version,
      "1.0.0",
    );
    assert.deepEqual(
      [operatorNotes.length, retailNotes.length, events.length],
      [0, 0, 0],
    );

    // At the moment: the timer fires; the operator (who could see 1.0.0) is told, retail is not.
    timers.advance(DUE);
    assert.deepEqual(events, ["retired payments.lookup@1.0.0"]);
    assert.deepEqual(operatorNotes, [{
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    }]);
    assert.deepEqual(retailNotes, []);
    now = await state();
    assert.deepEqual([now.registry, now.resolves, now.editor], [
      "retired",
      undefined,
      "retired",
    ]);
    assert.deepEqual(
      JSON.parse(now.cli.out).tools.find((t: { name: string }) => t.name === "payments.lookup")
        .versions[0],
      { version: "1.0.0", state: "retired" },
    );
    assert.match(
      (await cli(["list", "--estate", estateDir], dir, clock.date)).out,
      /payments\.lookup +1\.0\.0 \(retired\), 1\.1\.0, 2\.0\.0/,
    );
    const after = await pinned();
    assert.ok(after && "error" in after, JSON.stringify(after));
    assert.match(
      after.error.message,
      /No version of payments\.lookup satisfies 1\.0\.0/,
    );
    // The record shows it retired at the moment the date passed, in every reader.
    const retired = {
      state: "retired",
      at: "2027-04-01T00:00:00.000Z",
      reason: "retire-after date 2027-03-31 passed",
    };
    assert.deepEqual(
      estate.registry.versions("payments.lookup")[0].history.at(-1),
      retired,
    );
    assert.deepEqual(
      editor.registry.versions("payments.lookup")[0].history.at(-1),
      retired,
    );
    assert.deepEqual(
      EstateDir.open(estateDir, { now: clock.date }).registry.versions(
        "payments.lookup",
      )[0].history
        .at(-1),
      retired,
    );
    // Readers wrote nothing; no more timers (nothing else is scheduled); once only.
    assert.equal(lifecycle(dir)["1.0.0"].length, 2);
    assert.equal(timers.count, 0);
    timers.advance(DUE + 86_400_000);
    assert.equal(events.length, 1);
    assert.equal(operatorNotes.length, 1);
    server.close();
  });
});

Deno.test("the next write to the tool records the retirement in lifecycle.json: the same entry whoever writes it", async () => {
  await withCorpus((dir) => {
    const estateDir = path.join(dir, "corpus");
    const late = new Date(DUE + 3 * 86_400_000);
    // Two writers who notice it at different times, each through a different write.
    const a = EstateDir.open(estateDir, { now: () => late });
    a.deprecate("payments.lookup", "1.1.0", { reason: "use ^2.0.0" });
    const first = lifecycle(dir);
    assert.deepEqual(first["1.0.0"].at(-1), {
      state: "retired",
      at: "2027-04-01T00:00:00.000Z",
      reason: "retire-after date 2027-03-31 passed",
    });
    const b = EstateDir.open(estateDir, {
      now: () => new Date(DUE + 9 * 86_400_000),
    });
    assert.equal(
      b.publish(
        lookup(
          "2.0.0",
          JSON.parse(
            fs.readFileSync(
              path.join(estateDir, "tools/payments.lookup/2.0.0.json"),
              "utf8",
            ),
          ),
        ),
      ).status,
      "already-published",
    );
    assert.deepEqual(
      lifecycle(dir),
      first,
      "recorded once; a second writer finds nothing to add",
    );
    // A copy that never saw it written gets the same entry from its own write.
    const other = path.join(dir, "other");
    fs.cpSync(CORPUS, other, { recursive: true });
    EstateDir.open(other, { now: () => new Date(DUE + 5 * 86_400_000) })
      .deprecate(
        "payments.lookup",
        "1.1.0",
        { reason: "x" },
      );
    assert.deepEqual(
      JSON.parse(fs.readFileSync(path.join(other, LIFECYCLE), "utf8"))["1.0.0"],
      first["1.0.0"],
    );
  });
});

Deno.test("estate impact after retirement reports who called it after it retired (the calls that now fail), not who must migrate", async () => {
  await withCorpus(async (dir) => {
    const estateDir = path.join(dir, "corpus");
    const clock = new Clock(DUE + 7 * 86_400_000);
    const late: StoredCall[] = [
      {
        version: "1.0.0",
        arguments: { reference: "PMT-000001" },
        principal: "wholesale-operator",
        at: "2027-04-01T08:00:00.000Z",
      },
      {
        version: "1.0.0",
        arguments: { reference: "PMT-000002" },
        principal: "wholesale-operator",
        at: "2027-04-03T08:00:00.000Z",
      },
      {
        version: "1.0.0",
        arguments: { reference: "PMT-000003" },
        principal: "group-risk-analyst",
        at: "2027-03-31T23:59:59.000Z",
      }, // before
    ];
    const estate = EstateDir.open(estateDir, { now: clock.date });
    estate.appendCalls("payments.lookup", late);
    const before = [...estate.readCalls("payments.lookup")].filter((c) =>
      c.version === "1.0.0"
    ).length;
    const r = await cli(
      ["impact", "payments.lookup@1.0.0", "--estate", estateDir],
      dir,
      clock.date,
    );
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /must migrate/);
    assert.match(
      r.out,
      new RegExp(
        `^payments\\.lookup@1\\.0\\.0 \\(retired 2027-04-01T00:00:00\\.000Z: retire-after date 2027-03-31 passed\\): 2 calls from 1 principal after it retired; these calls now fail \\(${before} calls from \\d principals in all\\)\\n  wholesale-operator +2 calls, last seen 2027-04-03T08:00:00\\.000Z\\n$`,
      ),
    );
    const json = JSON.parse(
      (await cli(
        ["impact", "payments.lookup@1.0.0", "--estate", estateDir, "--json"],
        dir,
        clock.date,
      ))
        .out,
    );
    assert.equal(json.state, "retired");
    assert.equal(json.retiredAt, "2027-04-01T00:00:00.000Z");
    assert.deepEqual(json.afterRetirement, {
      calls: 2,
      callers: [{
        principal: "wholesale-operator",
        calls: 2,
        lastSeen: "2027-04-03T08:00:00.000Z",
      }],
    });
    // Before its date the same command says who must migrate, as it did.
    const early = await cli(
      ["impact", "payments.lookup@1.0.0", "--estate", estateDir],
      dir,
      () => new Date(DUE - 1),
    );
    assert.match(
      early.out,
      /\(deprecated, retire after 2027-03-31\): .* who must migrate before retirement/,
    );
  });
});

Deno.test("ToolRegistry retires on the date by its clock: nextRetirement() says when, reads apply it once with one event, retireDue() applies it on time", () => {
  const clock = new Clock(Date.parse("2026-12-01T10:00:00Z"));
  const registry = new ToolRegistry({ now: clock.date });
  registry.publish(lookup("1.0.0"));
  registry.publish(lookup("1.1.0", { title: "Next" }));
  registry.publish(lookup("1.2.0", { title: "After" }));
  const events: string[] = [];
  registry.subscribe((e) => events.push(`${e.type} ${e.version}`));
  assert.equal(registry.nextRetirement(), undefined);
  registry.deprecate("payments.lookup", "1.0.0", { retireAfter: "2026-12-24" });
  registry.deprecate("payments.lookup", "1.1.0", { retireAfter: "2026-12-02" });
  assert.equal(registry.nextRetirement(), "2026-12-03T00:00:00.000Z");
  clock.t = Date.parse("2026-12-03T00:00:00Z") - 1;
  assert.deepEqual(registry.retireDue(), []);
  assert.equal(registry.resolve("payments.lookup", "~1.1.0")?.version, "1.1.0");
  clock.t++;
  assert.equal(registry.resolve("payments.lookup", "~1.1.0"), undefined); // a read applies it
  assert.deepEqual(registry.retireDue(), []);
  assert.equal(registry.nextRetirement(), "2026-12-25T00:00:00.000Z");
  clock.t = Date.parse("2027-01-01T00:00:00Z");
  assert.deepEqual(
    registry.retireDue().map((r) => [r.spec.version, r.history.at(-1)!.at]),
    [[
      "1.0.0",
      "2026-12-25T00:00:00.000Z",
    ]],
  );
  assert.equal(registry.nextRetirement(), undefined);
  assert.deepEqual(events, [
    "deprecated 1.0.0",
    "deprecated 1.1.0",
    "retired 1.1.0",
    "retired 1.0.0",
  ]);
  assert.throws(
    () => registry.retire("payments.lookup", "1.0.0"),
    /Cannot retire payments\.lookup@1\.0\.0: it is already retired \(its retire-after date 2026-12-24 passed at 2026-12-25T00:00:00\.000Z\)/,
  );
  // The rules refuse with the plan; without rules retire() stays as permissive as it was.
  assert.throws(
    () => registry.retire("payments.lookup", "1.2.0", { rules: {} }),
    (e: unknown) =>
      e instanceof RetirementError &&
      e.plan.refusals.map((r) => r.refusal).join() ===
        "not-deprecated,only-active",
  );
  assert.equal(registry.retire("payments.lookup", "1.2.0").state, "retired");
});
