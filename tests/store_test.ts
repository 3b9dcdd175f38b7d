import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type EstateEvent,
  type JsonSchema,
  LifecycleError,
  PublishError,
  ToolRegistry,
  type ToolSpec,
  ToolSpecError,
} from "../mod.ts";
import { CorpusError, EstateDir, readCallsFile } from "../lib/store/mod.ts";
import { locateJsonError } from "../lib/store/_json.ts";
import { call, clock, lookup, snapshot, withTempDir } from "./_store_fixtures.ts";

const withNote = (version: string): ToolSpec =>
  lookup(version, {
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" }, note: { type: "string" } },
      required: ["reference"],
    },
  });

const PRINCIPALS = [
  {
    id: "ops-bot",
    scopes: ["payments:read"],
    tenant: "wholesale",
    clearance: "confidential",
    description: "The wholesale operations agent",
    token: "dev-token-ops",
  },
  { id: "teller", scopes: [], tenant: "retail", clearance: "internal" },
];

/** This host's name as the lock records it (empty without --allow-sys). */
function host(): string {
  try {
    return Deno.hostname();
  } catch {
    return "";
  }
}

function toolFile(dir: string, file: string): string {
  return `${dir}/tools/payments.lookup/${file}`;
}

function throwsCorpus(
  fn: () => unknown,
  file: string,
  line?: number,
): CorpusError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(
    caught instanceof CorpusError,
    `expected a CorpusError, got ${caught}`,
  );
  assert.equal(caught.file, file);
  assert.ok(caught.message.startsWith(file), caught.message);
  if (line !== undefined) {
    assert.equal(caught.line, line, caught.message);
    assert.ok(caught.message.startsWith(`${file}:${line}`), caught.message);
  }
  return caught;
}

Deno.test("EstateDir round trip: versions, lifecycle, calls and principals survive a reopen", async () => {
  await withTempDir((dir) => {
    Deno.writeTextFileSync(
      `${dir}/principals.json`,
      JSON.stringify(PRINCIPALS, null, 2),
    );
    const estate = EstateDir.open(dir, { now: clock() });
    assert.equal(estate.publish(lookup("1.0.0")).status, "published");
    assert.equal(estate.publish(withNote("1.1.0")).status, "published");
    estate.deprecate("payments.lookup", "1.0.0", {
      reason: "use 1.1.0",
      retireAfter: "2026-06-30",
    });
    estate.retire("payments.lookup", "1.0.0", { reason: "no callers left" });
    const calls = [
      call("1.0.0", { reference: "PMT-000001" }),
      call(
        "1.1.0",
        { reference: "PMT-000002", note: "Überweisung für 𝄞 Ltd" },
        "teller",
      ),
    ];
    assert.equal(estate.appendCalls("payments.lookup", calls), 2);

    const again = EstateDir.open(dir);
    assert.deepEqual(
      again.registry.versions("payments.lookup"),
      estate.registry.versions("payments.lookup"),
    );
    assert.deepEqual(
      again.registry.versions("payments.lookup").map((r) => r.history),
      [
        [
          { state: "active", at: "2026-01-05T09:00:01.000Z" },
          {
            state: "deprecated",
            at: "2026-01-05T09:00:03.000Z",
            reason: "use 1.1.0",
            retireAfter: "2026-06-30",
          },
          {
            state: "retired",
            at: "2026-01-05T09:00:04.000Z",
            reason: "no callers left",
          },
        ],
        [{ state: "active", at: "2026-01-05T09:00:02.000Z" }],
      ],
    );
    assert.deepEqual([...again.readCalls("payments.lookup")], calls);
    assert.deepEqual(again.principals(), PRINCIPALS);
    assert.equal(again.principal("teller")?.tenant, "retail");
    assert.equal(again.principal("nobody"), undefined);
    // The files are what a reviewer reads: pretty JSON with a final newline.
    assert.equal(
      Deno.readTextFileSync(toolFile(dir, "1.0.0.json")),
      JSON.stringify(lookup("1.0.0"), null, 2) + "\n",
    );
    assert.deepEqual(
      Object.keys(
        JSON.parse(Deno.readTextFileSync(toolFile(dir, "lifecycle.json"))),
      ),
      ["1.0.0", "1.1.0"],
    );
  });
});

Deno.test("publish() of identical content writes nothing; different content is refused like the registry refuses it", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir, { now: clock() });
    estate.publish(lookup("1.0.0"));
    const before = snapshot(dir);
    const mtime = Deno.statSync(toolFile(dir, "1.0.0.json")).mtime;
    assert.equal(estate.publish(lookup("1.0.0")).status, "already-published");

    const changed = lookup("1.0.0", { title: "Find a payment" });
    const expected = new ToolRegistry();
    expected.publish(lookup("1.0.0"));
    assert.throws(() => expected.publish(changed), PublishError);
    let message = "";
    try {
      expected.publish(changed);
    } catch (e) {
      message = (e as Error).message;
    }
    assert.throws(
      () => estate.publish(changed),
      (e: unknown) =>
        e instanceof PublishError && e.refusal === "republish" &&
        e.message === message,
    );
    assert.deepEqual(snapshot(dir), before);
    assert.deepEqual(Deno.statSync(toolFile(dir, "1.0.0.json")).mtime, mtime);
  });
});

Deno.test("publish() refuses a bump smaller than the change with the registry's PublishError", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    estate.publish(withNote("1.0.0"));
    const breaking = lookup("1.1.0"); // removes the property note: major
    const registry = new ToolRegistry();
    registry.publish(withNote("1.0.0"));
    const expected = (() => {
      try {
        registry.publish(breaking);
      } catch (e) {
        return e as PublishError;
      }
    })()!;
    assert.equal(expected.refusal, "bump-too-small");
    const before = snapshot(dir);
    assert.throws(
      () => estate.publish(breaking),
      (e: unknown) =>
        e instanceof PublishError && e.refusal === "bump-too-small" &&
        e.message === expected.message &&
        e.changes.length === expected.changes.length,
    );
    assert.deepEqual(snapshot(dir), before);
    assert.equal(estate.publish(lookup("2.0.0")).status, "published");
  });
});

Deno.test("publish() refuses an output schema change with the registry's PublishError, output changes included", async () => {
  await withTempDir((dir) => {
    const withStatus = (version: string, status: JsonSchema): ToolSpec =>
      lookup(version, {
        outputSchema: {
          type: "object",
          properties: { status },
          required: ["status"],
        },
      });
    const v1 = withStatus("1.0.0", { type: "string" });
    const narrowed = withStatus("1.1.0", {
      type: "string",
      enum: ["HELD", "SETTLED"],
    });
    const widened = withStatus("1.1.0", { type: ["string", "null"] }); // a consumer may break: major
    const estate = EstateDir.open(dir);
    estate.publish(v1);
    const registry = new ToolRegistry();
    registry.publish(v1);
    const refusal = (publish: () => unknown): PublishError => {
      try {
        publish();
      } catch (e) {
        if (e instanceof PublishError) return e;
        throw e;
      }
      throw new Error("expected a PublishError");
    };
    const expected = refusal(() => registry.publish(widened));
    assert.equal(expected.refusal, "bump-too-small");
    assert.ok(expected.outputChanges.length > 0);
    const actual = refusal(() => estate.publish(widened));
    assert.equal(actual.message, expected.message);
    assert.deepEqual(actual.outputChanges, expected.outputChanges);
    assert.deepEqual(actual.changes, expected.changes);
    assert.equal(estate.publish(narrowed).status, "published");
  });
});

Deno.test("publish() replays calls.jsonl: a non-major version that rejects stored calls is refused, saying how many and which", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    estate.publish(lookup("1.0.0"));
    // Agents sent a `note` the 1.0.0 schema did not look at; 1.1.0 declares it as a string.
    estate.appendCalls("payments.lookup", [
      call("1.0.0", { reference: "PMT-000001" }),
      call("1.0.0", { reference: "PMT-000002", note: 7 }),
      call("1.0.0", { reference: "PMT-000003", note: "fine" }),
      call("1.0.0", { reference: "PMT-000004", note: false }, "teller"),
      call("1.0.0", { reference: "PMT-000005", note: [1] }),
      call("1.0.0", { reference: "PMT-000006", note: null }),
      call("1.0.0", { reference: "PMT-000007", note: {} }),
    ]);
    const before = snapshot(dir);
    assert.throws(
      () => estate.publish(withNote("1.1.0")),
      (e: unknown) => {
        assert.ok(e instanceof PublishError);
        assert.equal(e.refusal, "corpus-rejected");
        assert.equal(e.rejected.count, 5);
        assert.deepEqual(e.rejected.first.map((r) => r.index), [2, 4, 5]);
        assert.match(e.message, /rejects 5 stored calls/);
        assert.match(
          e.message,
          /call 2 \(ops-bot, .*\).*call 4 \(teller, .*\).*call 5 /,
        );
        assert.match(e.message, /publish 2\.0\.0/);
        return true;
      },
    );
    assert.deepEqual(snapshot(dir), before);
    assert.equal(estate.registry.latest("payments.lookup")?.version, "1.0.0");
    assert.equal(estate.publish(withNote("2.0.0")).status, "published");
  });
});

Deno.test("a bad line in calls.jsonl surfaces at replay as a CorpusError naming file and line; nothing is written", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    estate.publish(lookup("1.0.0"));
    const calls = toolFile(dir, "calls.jsonl");
    const good = JSON.stringify(call("1.0.0", { reference: "PMT-000001" }));
    for (
      const [bad, problem] of [
        [
          '{"version":"1.0.0","arguments":{},"principal":"ops-bot","at":',
          /not valid JSON/,
        ],
        [
          '{"version":"1.0","arguments":{},"principal":"ops-bot","at":"2026-01-05T09:00:00Z"}',
          /version "1.0" is not a semantic version/,
        ],
        [
          '{"version":"1.0.0","principal":"ops-bot","at":"2026-01-05T09:00:00Z"}',
          /arguments is required/,
        ],
        ["", /empty line/],
      ] as const
    ) {
      Deno.writeTextFileSync(calls, `${good}\n${good}\n${bad}\n${good}\n`);
      const before = snapshot(dir);
      // EstateDir.open does not read calls: they are streamed when replayed.
      const reopened = EstateDir.open(dir);
      const e = throwsCorpus(
        () => reopened.publish(withNote("1.1.0")),
        calls,
        3,
      );
      assert.match(e.message, problem);
      throwsCorpus(() => [...reopened.readCalls("payments.lookup")], calls, 3);
      assert.deepEqual(snapshot(dir), before);
    }
  });
});

Deno.test("a truncated version file is a CorpusError with file, line and column; the files are left as they are", async () => {
  await withTempDir((dir) => {
    EstateDir.open(dir).publish(lookup("1.0.0"));
    const file = toolFile(dir, "1.0.0.json");
    const text = Deno.readTextFileSync(file);
    const truncated = text.slice(0, text.indexOf('"sideEffect"') + 5);
    Deno.writeTextFileSync(file, truncated);
    const before = snapshot(dir);
    const lines = truncated.split("\n");
    const e = throwsCorpus(() => EstateDir.open(dir), file, lines.length);
    assert.equal(e.column, lines[lines.length - 1].length + 1);
    assert.match(e.message, /unexpected end of file.*truncated/);
    // A publish does not overwrite it either.
    const estate = (() => {
      Deno.writeTextFileSync(file, text);
      const estate = EstateDir.open(dir);
      Deno.writeTextFileSync(file, truncated);
      return estate;
    })();
    throwsCorpus(() => estate.publish(lookup("1.0.1")), file);
    assert.deepEqual(snapshot(dir), before);
  });
});

Deno.test("a bad lifecycle.json is a CorpusError naming the file (and the line of the version)", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir, { now: clock() });
    estate.publish(lookup("1.0.0"));
    const file = toolFile(dir, "lifecycle.json");
    const at = "2026-01-05T09:00:01.000Z";
    for (
      const [text, line, problem] of [
        [
          `{\n  "1.0.0": [\n    { "state": "active", "at": "${at}" }\n  ],\n}\n`,
          5,
          /not valid JSON/,
        ],
        [
          `{\n  "1.0.0": [\n    { "state": "deprecated", "at": "${at}" }\n  ]\n}\n`,
          2,
          /starts with "active"/,
        ],
        [
          `{\n  "1.0.0": [\n    { "state": "active", "at": "${at}" },\n    { "state": "retired", "at": "${at}" },\n    { "state": "active", "at": "${at}" }\n  ]\n}\n`,
          2,
          /cannot go from retired to active/,
        ],
        [
          `{\n  "1.0.0": [{ "state": "active", "at": "${at}" }],\n  "1.2.0": [{ "state": "active", "at": "${at}" }]\n}\n`,
          3,
          /no version file 1\.2\.0\.json/,
        ],
        [`["1.0.0"]\n`, 1, /must be a JSON object/],
      ] as const
    ) {
      Deno.writeTextFileSync(file, text);
      const before = snapshot(dir);
      const e = throwsCorpus(() => EstateDir.open(dir), file, line);
      assert.match(e.message, problem);
      throwsCorpus(
        () => estate.deprecate("payments.lookup", "1.0.0"),
        file,
        line,
      );
      assert.deepEqual(snapshot(dir), before);
    }
  });
});

Deno.test("a version file whose name does not match its version, or that is not a valid spec, is a CorpusError", async () => {
  await withTempDir((dir) => {
    EstateDir.open(dir).publish(lookup("1.0.0"));
    const wrongPlace = toolFile(dir, "1.0.1.json");
    Deno.writeTextFileSync(
      wrongPlace,
      JSON.stringify(lookup("1.0.2"), null, 2) + "\n",
    );
    let e = throwsCorpus(() => EstateDir.open(dir), wrongPlace, 3);
    assert.match(e.message, /version "1\.0\.2" does not match the file name/);
    Deno.removeSync(wrongPlace);

    const invalid = toolFile(dir, "1.0.1.json");
    const { owner: _, ...ownerless } = lookup("1.0.1");
    Deno.writeTextFileSync(
      invalid,
      JSON.stringify({ ...ownerless, sideEffect: "maybe" }),
    );
    e = throwsCorpus(() => EstateDir.open(dir), invalid);
    assert.match(e.message, /sideEffect must be one of/);
    assert.match(e.message, /owner is required/);
    assert.ok(e.cause instanceof ToolSpecError);
    Deno.removeSync(invalid);

    const stray = toolFile(dir, "notes.txt");
    Deno.writeTextFileSync(stray, "todo");
    throwsCorpus(() => EstateDir.open(dir), stray);
    Deno.removeSync(stray);

    const elsewhere = `${dir}/tools/fx.quote`;
    Deno.mkdirSync(elsewhere);
    Deno.writeTextFileSync(
      `${elsewhere}/1.0.0.json`,
      JSON.stringify(lookup("1.0.0")),
    );
    e = throwsCorpus(() => EstateDir.open(dir), `${elsewhere}/1.0.0.json`);
    assert.match(e.message, /does not match the tool's folder "fx\.quote"/);
  });
});

Deno.test("leftovers of a crashed write (.tmp-*) are ignored on open and removed by the next write", async () => {
  await withTempDir((dir) => {
    EstateDir.open(dir).publish(lookup("1.0.0"));
    const leftover = toolFile(dir, ".tmp-1.1.0.json-99999-1-abc");
    Deno.writeTextFileSync(leftover, '{"name": "payments.lo');
    const estate = EstateDir.open(dir);
    assert.deepEqual(
      estate.registry.versions("payments.lookup").map((r) => r.spec.version),
      [
        "1.0.0",
      ],
    );
    estate.deprecate("payments.lookup", "1.0.0");
    assert.throws(() => Deno.statSync(leftover), Deno.errors.NotFound);
  });
});

Deno.test("a version without a lifecycle entry (a crash between the two writes) loads as active, and a republish records it", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir, { now: clock() });
    estate.publish(lookup("1.0.0"));
    const lifecycle = toolFile(dir, "lifecycle.json");
    const recorded = Deno.readTextFileSync(lifecycle);
    Deno.writeTextFileSync(
      toolFile(dir, "1.1.0.json"),
      JSON.stringify(withNote("1.1.0"), null, 2) + "\n",
    );
    const published = Deno.statSync(toolFile(dir, "1.1.0.json")).mtime!
      .toISOString();
    const reopened = EstateDir.open(dir);
    assert.deepEqual(reopened.registry.versions("payments.lookup")[1].history, [
      { state: "active", at: published },
    ]);
    assert.equal(Deno.readTextFileSync(lifecycle), recorded); // open writes nothing
    assert.equal(
      reopened.publish(withNote("1.1.0")).status,
      "already-published",
    );
    assert.deepEqual(JSON.parse(Deno.readTextFileSync(lifecycle))["1.1.0"], [
      { state: "active", at: published },
    ]);
  });
});

Deno.test("readCalls() streams: the first call arrives before the rest of a 200k-call file is read", async () => {
  await withTempDir((dir) => {
    EstateDir.open(dir).publish(lookup("1.0.0"));
    const n = 200_000;
    // Lines of one length, so that a line boundary is easy to find.
    const line = (i: number) =>
      JSON.stringify(
        call("1.0.0", {
          reference: `PMT-${String(i).padStart(6, "0")}`,
          amount: 125.5,
        }),
      );
    const width = line(0).length + 1;
    const text = Array.from({ length: n }, (_, i) => line(i)).join("\n") + "\n";
    const file = toolFile(dir, "calls.jsonl");
    Deno.writeTextFileSync(file, text);
    assert.equal(Deno.statSync(file).size, n * width);

    const estate = EstateDir.open(dir);
    const calls = estate.readCalls("payments.lookup");
    assert.deepEqual(calls.next().value?.arguments, {
      reference: "PMT-000000",
      amount: 125.5,
    });
    // Cut the file to 10,000 lines. A reader that had read (or mapped) the whole file would still
    // yield 200,000 calls; a streaming one stops at the cut.
    const kept = 10_000;
    Deno.truncateSync(file, kept * width);
    let count = 1;
    for (const c of calls) {
      assert.equal(
        (c.arguments as { reference: string }).reference,
        `PMT-${String(count).padStart(6, "0")}`,
      );
      count++;
    }
    assert.equal(count, kept);
    // And the whole file, when it is there, is read to the end.
    Deno.writeTextFileSync(file, text);
    let all = 0;
    for (const _ of estate.readCalls("payments.lookup")) all++;
    assert.equal(all, n);
  });
});

Deno.test("readCallsFile() reads the same calls at every buffer size: UTF-8 split across reads, CRLF, a last line without a newline", async () => {
  await withTempDir((dir) => {
    const calls = [
      call("1.0.0", {
        reference: "PMT-000001",
        note: "Zahlung an Müller & Söhne — 𝄞 ✓",
      }),
      call(
        "1.0.0",
        { reference: "€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€" },
        "teller",
      ),
      call("1.1.0", { reference: "日本語の参照番号" }),
    ];
    const file = `${dir}/calls.jsonl`;
    const lines = calls.map((c) => JSON.stringify(c));
    for (
      const text of [
        lines.join("\n"),
        lines.join("\r\n") + "\r\n",
        "\uFEFF" + lines.join("\n") + "\n",
      ]
    ) {
      Deno.writeTextFileSync(file, text);
      for (let size = 1; size <= 64; size++) {
        assert.deepEqual(
          [...readCallsFile(file, { bufferSize: size })],
          calls,
          `buffer ${size}`,
        );
      }
    }
    assert.deepEqual([...readCallsFile(`${dir}/missing.jsonl`)], []);
    Deno.writeFileSync(
      file,
      new Uint8Array([
        ...new TextEncoder().encode(lines[0] + "\n"),
        0x7b,
        0xff,
        0x7d,
        0x0a,
      ]),
    );
    throwsCorpus(() => [...readCallsFile(file, { bufferSize: 7 })], file, 2);
  });
});

Deno.test("appendCalls() appends whole lines, starts a new line after an unterminated one, and refuses bad calls before writing", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    estate.publish(lookup("1.0.0"));
    const file = toolFile(dir, "calls.jsonl");
    const first = call("1.0.0", { reference: "PMT-000001" });
    Deno.writeTextFileSync(file, JSON.stringify(first)); // hand-written, no final newline
    const more = [
      call("1.0.0", { reference: "PMT-000002" }),
      call("1.0.0", { reference: "PMT-000003" }),
    ];
    assert.equal(estate.appendCalls("payments.lookup", more), 2);
    assert.deepEqual([...estate.readCalls("payments.lookup")], [
      first,
      ...more,
    ]);
    assert.ok(Deno.readTextFileSync(file).endsWith("\n"));

    const before = snapshot(dir);
    assert.throws(
      () =>
        estate.appendCalls("payments.lookup", [
          call("1.0.0", { reference: "PMT-000004" }),
          { version: "1.0.0", arguments: {}, principal: "", at: "yesterday" },
        ]),
      /Cannot append call 2 to payments\.lookup: principal must be a non-empty string; at must be an ISO 8601 timestamp/,
    );
    assert.throws(
      () => estate.appendCalls("fx.quote", more),
      /fx\.quote.*does not exist; publish the tool first/,
    );
    assert.throws(
      () => estate.appendCalls("..", more),
      /Invalid tool name "\.\."/,
    );
    assert.deepEqual(snapshot(dir), before);
  });
});

Deno.test("subscribers hear of publishes and lifecycle changes, including those another EstateDir wrote to disk, and may write from their callbacks", async () => {
  await withTempDir((dir) => {
    const ours = EstateDir.open(dir, { now: clock(), lockTimeoutMs: 200 });
    const events: EstateEvent[] = [];
    ours.registry.subscribe((e) => {
      events.push(e);
      // Writing to the same tool from a callback: events are delivered after the lock is released.
      if (e.type === "deprecated") {
        ours.appendCalls(e.name, [call(e.version, { reference: "x" })]);
      }
    });
    ours.publish(lookup("1.0.0"));
    assert.equal(ours.publish(lookup("1.0.0")).status, "already-published"); // no event

    const theirs = EstateDir.open(dir, {
      now: () => new Date("2026-02-01T00:00:00Z"),
    });
    theirs.deprecate("payments.lookup", "1.0.0", { reason: "use 1.1.0" });
    theirs.publish(withNote("1.1.0"));
    // Ours learns of both when it next writes the tool: the deprecation as an event, replayed with
    // the time and reason recorded; the version restored (it was published elsewhere).
    ours.retire("payments.lookup", "1.0.0", { reason: "gone" });
    assert.deepEqual(events.map((e) => `${e.type} ${e.version}`), [
      "published 1.0.0",
      "deprecated 1.0.0",
      "retired 1.0.0",
    ]);
    assert.deepEqual(
      ours.registry.versions("payments.lookup"),
      EstateDir.open(dir).registry.versions("payments.lookup"),
    );
    assert.equal(
      ours.registry.versions("payments.lookup")[0].history[1].reason,
      "use 1.1.0",
    );
    assert.equal([...ours.readCalls("payments.lookup")].length, 1);
  });
});

Deno.test("publish() decides against the disk: a version another process published since open() is respected", async () => {
  await withTempDir((dir) => {
    const a = EstateDir.open(dir);
    const b = EstateDir.open(dir);
    a.publish(lookup("1.0.0"));
    a.publish(withNote("1.1.0"));
    assert.throws(
      () => b.publish(lookup("1.1.0", { title: "Different" })),
      (e: unknown) => e instanceof PublishError && e.refusal === "republish",
    );
    assert.throws(
      () => b.publish(lookup("1.0.5")),
      (e: unknown) => e instanceof PublishError && e.refusal === "not-newer",
    );
    assert.equal(b.publish(withNote("1.1.0")).status, "already-published");
    assert.equal(b.registry.latest("payments.lookup")?.version, "1.1.0");
  });
});

Deno.test("deprecate() and retire() refuse as the registry does, against the disk, and write nothing", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    estate.publish(lookup("1.0.0"));
    const other = EstateDir.open(dir);
    other.retire("payments.lookup", "1.0.0");
    const before = snapshot(dir);
    assert.throws(
      () => estate.deprecate("payments.lookup", "1.0.0"), // active in memory, retired on disk
      (e: unknown) =>
        e instanceof LifecycleError &&
        e.message ===
          "Cannot deprecate payments.lookup@1.0.0: it is retired; only an active version can be deprecated",
    );
    assert.throws(
      () => estate.retire("payments.lookup", "9.0.0"),
      (e: unknown) =>
        e instanceof LifecycleError &&
        e.message ===
          "Cannot retire payments.lookup@9.0.0: no such published version",
    );
    assert.throws(
      () => estate.retire("fx.quote", "1.0.0"),
      /Cannot retire fx\.quote@1\.0\.0: no such published version/,
    );
    assert.deepEqual(snapshot(dir), before);
  });
});

Deno.test("a tool's lock held by a running process makes a write wait, then fail naming the lock; a dead holder's lock is broken", async () => {
  await withTempDir(async (dir) => {
    const estate = EstateDir.open(dir, { lockTimeoutMs: 200 });
    estate.publish(lookup("1.0.0"));
    const lock = toolFile(dir, ".lock");
    // Held by this (running) process as if by another estate.
    Deno.writeTextFileSync(
      lock,
      JSON.stringify({
        pid: Deno.pid,
        host: host(),
        at: "2026-01-05T09:00:00Z",
        nonce: "x",
      }),
    );
    const t0 = Date.now();
    assert.throws(
      () => estate.deprecate("payments.lookup", "1.0.0"),
      (e: unknown) =>
        e instanceof Error &&
        e.message.includes(
          `Cannot deprecate payments.lookup@1.0.0: ${lock} is held by pid ${Deno.pid}`,
        ) &&
        /still running/.test(e.message) && /delete/.test(e.message),
    );
    assert.ok(Date.now() - t0 >= 200);
    assert.equal(
      estate.registry.versions("payments.lookup")[0].state,
      "active",
    );

    // Held by a process that has exited.
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", ""],
      stdout: "null",
    }).spawn();
    await child.status;
    Deno.writeTextFileSync(
      lock,
      JSON.stringify({
        pid: child.pid,
        host: host(),
        at: "2026-01-05T09:00:00Z",
        nonce: "y",
      }),
    );
    estate.deprecate("payments.lookup", "1.0.0");
    assert.equal(
      estate.registry.versions("payments.lookup")[0].state,
      "deprecated",
    );
    assert.throws(() => Deno.statSync(lock), Deno.errors.NotFound);
  });
});

Deno.test("principals.json: entries are checked, and a bad one is a CorpusError naming the file and entry", async () => {
  await withTempDir((dir) => {
    const file = `${dir}/principals.json`;
    Deno.writeTextFileSync(
      file,
      JSON.stringify(
        [PRINCIPALS[0], { ...PRINCIPALS[1], clearance: "secret" }],
        null,
        2,
      ),
    );
    const e = throwsCorpus(() => EstateDir.open(dir), file);
    assert.match(
      e.message,
      /entry 2 \(teller\): clearance must be one of public, internal, confidential, restricted/,
    );
    Deno.writeTextFileSync(file, '[\n  { "id": "ops-bot", }\n]');
    throwsCorpus(() => EstateDir.open(dir), file, 2);
  });
});

Deno.test("principals.json: tokenSha256 (64 hex digits) is read; a plain token too; a malformed hash, or both, is refused at its entry's line", async () => {
  await withTempDir((dir) => {
    const file = `${dir}/principals.json`;
    const hash = "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08";
    Deno.writeTextFileSync(
      file,
      JSON.stringify(
        [{ ...PRINCIPALS[1], tokenSha256: hash }, PRINCIPALS[0]],
        null,
        2,
      ),
    );
    const estate = EstateDir.open(dir);
    assert.equal(estate.principal("teller")?.tokenSha256, hash.toLowerCase());
    assert.equal(estate.principal("ops-bot")?.token, "dev-token-ops");
    const bad = (entry: Record<string, unknown>) =>
      JSON.stringify([PRINCIPALS[0], { ...PRINCIPALS[1], ...entry }], null, 2);
    // The second entry starts on line 12 of the pretty-printed list.
    Deno.writeTextFileSync(file, bad({ tokenSha256: "abc" }));
    const e = throwsCorpus(() => EstateDir.open(dir), file, 12);
    assert.match(
      e.message,
      /entry 2 \(teller\): tokenSha256 must be 64 hexadecimal digits/,
    );
    Deno.writeTextFileSync(file, bad({ tokenSha256: hash, token: "t" }));
    assert.match(
      throwsCorpus(() => EstateDir.open(dir), file, 12).message,
      /entry 2 \(teller\): has both token and tokenSha256; keep tokenSha256 only/,
    );
  });
});

Deno.test("refreshPrincipals() takes in a changed principals.json, and keeps the last good principals when it is bad", async () => {
  await withTempDir((dir) => {
    const file = `${dir}/principals.json`;
    Deno.writeTextFileSync(file, JSON.stringify(PRINCIPALS, null, 2));
    const estate = EstateDir.open(dir);
    assert.equal(estate.refreshPrincipals(), false, "unchanged");
    const fewer = [{ ...PRINCIPALS[0], scopes: [] }, PRINCIPALS[1]];
    Deno.writeTextFileSync(file, JSON.stringify(fewer, null, 2));
    assert.equal(estate.refreshPrincipals(), true);
    assert.deepEqual(estate.principal("ops-bot")?.scopes, []);
    Deno.writeTextFileSync(file, '[\n  { "id": "ops-bot", }\n]');
    throwsCorpus(() => estate.refreshPrincipals(), file, 2);
    assert.deepEqual(
      estate.principals(),
      fewer,
      "the last good principals stay",
    );
    Deno.removeSync(file);
    assert.equal(estate.refreshPrincipals(), true);
    assert.deepEqual(
      estate.principals(),
      [],
      "no file: no principals, as for open()",
    );
  });
});

Deno.test("publish() reads a spec file, and names it (line and column) when it is not JSON", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    const draft = `${dir}/draft.tool.json`;
    Deno.writeTextFileSync(
      draft,
      JSON.stringify({ $schema: "x", ...lookup("1.0.0") }, null, 2),
    );
    assert.equal(estate.publish(draft).status, "published");
    assert.equal(
      Deno.readTextFileSync(toolFile(dir, "1.0.0.json")),
      JSON.stringify(lookup("1.0.0"), null, 2) + "\n",
    );
    Deno.writeTextFileSync(
      draft,
      '{\n  "name": "payments.lookup",\n  "version": 1.1.0\n}',
    );
    const e = throwsCorpus(() => estate.publish(draft), draft, 3);
    assert.equal(e.column, 17);
    assert.throws(
      () => estate.publish({ ...lookup("1.1.0"), owner: "" }),
      ToolSpecError,
    );
  });
});

Deno.test("open() needs an existing folder; a refused first publish of a tool leaves no folder behind", async () => {
  await withTempDir((dir) => {
    assert.throws(
      () => EstateDir.open(`${dir}/missing`),
      /Cannot open the estate .*missing: no such folder/,
    );
    const estate = EstateDir.open(dir);
    const unsafe = lookup("1.0.0", {
      inputSchema: {
        type: "object",
        properties: { reference: { $ref: "https://example.com/s" } },
      },
    });
    assert.throws(
      () => estate.publish(unsafe),
      (e: unknown) => e instanceof PublishError && e.refusal === "unsafe-schema",
    );
    assert.deepEqual(snapshot(dir), new Map());
    assert.throws(
      () => Deno.statSync(`${dir}/tools/payments.lookup`),
      Deno.errors.NotFound,
    );
  });
});

Deno.test("locateJsonError() finds an error exactly when JSON.parse fails", () => {
  const mutate = fc.tuple(
    fc.json(),
    fc.nat(),
    fc.constantFrom(
      "",
      "}",
      "]",
      ",",
      ":",
      '"',
      "x",
      "\n",
      "\\",
      "-",
      "0",
      "1e",
      "\u0001",
    ),
    fc.nat(3),
  )
    .map(([text, at, insert, cut]) => {
      const i = at % (text.length + 1);
      return text.slice(0, i) + insert + text.slice(i + cut);
    });
  fc.assert(
    fc.property(fc.oneof(fc.json(), mutate), (text) => {
      let ok = true;
      try {
        JSON.parse(text);
      } catch {
        ok = false;
      }
      const found = locateJsonError(text);
      assert.equal(
        found === undefined,
        ok,
        `${JSON.stringify(text)}: ${found?.problem}`,
      );
      if (found) assert.ok(found.offset >= 0 && found.offset <= text.length);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("lib/store/ uses no Deno.* (it runs under Node too), pg/ included", () => {
  const check = (dir: URL, prefix: string): number => {
    let n = 0;
    for (const e of Deno.readDirSync(dir)) {
      if (e.isDirectory) {
        n += check(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`);
        continue;
      }
      if (!e.name.endsWith(".ts")) continue;
      const code = Deno.readTextFileSync(new URL(e.name, dir))
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/\/\/.*$/gm, "");
      assert.doesNotMatch(code, /\bDeno\./, `${prefix}${e.name}`);
      n++;
    }
    return n;
  };
  assert.ok(check(new URL("../lib/store/", import.meta.url), "") > 10);
});
