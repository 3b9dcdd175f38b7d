/**
 * The extension's language server over real LSP: `node extension/dist/server.js --stdio`, a
 * scratch copy of `corpus/` as the estate, drafts as `*.tool.json` files.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { CodeAction, Hover } from "vscode-languageserver-protocol";
import { EstateDir } from "../lib/store/mod.ts";
import {
  corpusSpec,
  type Diagnostic,
  fileUri,
  type LspSession,
  makeWorkspace,
  ROOT,
  type StartOptions,
  startServer,
  textAt,
  type Workspace,
} from "./_lsp_client.ts";

const FIXTURES = path.join(ROOT, "tests", "testdata", "extension");

/** Runs a test with a scratch workspace and a server on it; shuts both down after. */
async function withServer(
  fn: (ls: LspSession, ws: Workspace) => Promise<void>,
  options: StartOptions = {},
): Promise<void> {
  const ws = makeWorkspace();
  const ls = await startServer(ws.dir, options);
  try {
    await fn(ls, ws);
    assert.equal(
      await ls.close(),
      0,
      "the server exits with 0 after shutdown and exit",
    );
  } finally {
    ls.process.kill();
    ws.remove();
  }
}

/** The diagnostics as `[severity, code, text under the range, message]`. */
function shown(
  text: string,
  diagnostics: Diagnostic[],
): [number, string, string, string][] {
  return diagnostics.map((
    d,
  ) => [d.severity!, String(d.code), textAt(text, d.range), d.message]);
}

/** A draft of payments.lookup based on the published 2.0.0 (edited freely, as a user would). */
function lookupDraft(
  // deno-lint-ignore no-explicit-any
  edit: (s: Record<string, any>) => void,
): Record<string, unknown> {
  const spec = corpusSpec("payments.lookup", "2.0.0");
  edit(spec);
  return spec;
}

Deno.test("LSP: initialize offers incremental sync, quick fixes and hover, and asks to watch the estate folder and new estate.json files", async () => {
  const ws = makeWorkspace();
  const ls = await startServer(ws.dir);
  try {
    // The registration arrives after `initialized`: wait for it.
    for (let i = 0; i < 100 && ls.registrations.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(ls.registrations.map((r) => r.method), [
      "workspace/didChangeWatchedFiles",
    ]);
    assert.deepEqual(ls.registrations[0].registerOptions, {
      watchers: [
        { globPattern: { baseUri: fileUri(ws.estate), pattern: "**/*" } },
        {
          globPattern: { baseUri: fileUri(ws.dir), pattern: "**/estate.json" },
        },
      ],
    });
    assert.equal(await ls.close(), 0);
  } finally {
    ls.process.kill();
    ws.remove();
  }
});

Deno.test("LSP: a breaking edit of a corpus draft is an error on version, with the change and the rejected calls at their nodes", async () => {
  await withServer(async (ls, ws) => {
    const text = fs.readFileSync(
      path.join(FIXTURES, "payments.lookup.tool.json"),
      "utf8",
    );
    const file = ws.write("payments.lookup.tool.json", text);
    const p = await ls.open(file);
    assert.equal(p.version, 1);
    assert.deepEqual(shown(text, p.diagnostics), [
      [
        1,
        "version-too-low",
        '"2.1.0"',
        "change is major against payments.lookup@2.0.0 (published): removed property includeHistory — version must be at least 3.0.0",
      ],
      [
        1,
        "rejected-calls",
        '"inputSchema"',
        '36 stored calls are rejected here: $.includeHistory property "includeHistory" is not allowed',
      ],
      [
        2,
        "property-removed",
        '"properties"',
        "removed property includeHistory: callers that send it are now rejected",
      ],
      [
        3,
        "breaking-call",
        "false",
        'the call of 2026-08-26 by wholesale-operator (to 2.0.0) with {"reference":"PMT-410814","includeHistory":true} would now be rejected: $.includeHistory property "includeHistory" is not allowed',
      ],
    ]);
    assert.ok(p.diagnostics.every((d) => d.source === "tool-estate"));
    // Positions the e2e relies on: version value on line 3 (0-based 2), column 14 (0-based 13).
    assert.deepEqual(p.diagnostics[0].range, {
      start: { line: 2, character: 13 },
      end: { line: 2, character: 20 },
    });
    const status = ls.statuses.at(-1)!;
    assert.deepEqual(status, {
      uri: fileUri(file),
      text: "against 2.0.0: major, needs 3.0.0",
      detail: "baseline payments.lookup@2.0.0 (published) in the estate corpus/",
      severity: "error",
    });
  });
});

Deno.test("LSP: the quick fix sets the version to the minimum, and applying it leaves version-ok", async () => {
  await withServer(async (ls, ws) => {
    const text = fs.readFileSync(
      path.join(FIXTURES, "payments.lookup.tool.json"),
      "utf8",
    );
    const file = ws.write("payments.lookup.tool.json", text);
    const uri = fileUri(file);
    const p = await ls.open(file);
    const versionDiagnostic = p.diagnostics[0];
    const actions: CodeAction[] = await ls.connection.sendRequest(
      "textDocument/codeAction",
      {
        textDocument: { uri },
        range: {
          start: { line: 2, character: 15 },
          end: { line: 2, character: 15 },
        },
        context: { diagnostics: [versionDiagnostic], only: ["quickfix"] },
      },
    );
    assert.equal(actions.length, 1);
    const fix = actions[0];
    assert.equal(fix.title, "Set version to 3.0.0");
    assert.equal(fix.kind, "quickfix");
    assert.equal(fix.isPreferred, true);
    assert.deepEqual(fix.diagnostics?.map((d) => d.code), ["version-too-low"]);
    const edits = fix.edit!.changes![uri];
    assert.deepEqual(edits, [{
      range: versionDiagnostic.range,
      newText: '"3.0.0"',
    }]);
    // No fix elsewhere in the file.
    const none: CodeAction[] = await ls.connection.sendRequest(
      "textDocument/codeAction",
      {
        textDocument: { uri },
        range: {
          start: { line: 0, character: 0 },
          end: { line: 0, character: 1 },
        },
        context: { diagnostics: [] },
      },
    );
    assert.deepEqual(none, []);
    // Apply it as the editor would: an incremental change.
    const next = ls.nextDiagnostics(uri);
    await ls.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: edits[0].range, text: edits[0].newText }],
    });
    const after = await next;
    assert.equal(after.version, 2);
    const fixed = text.replace('"version": "2.1.0"', '"version": "3.0.0"');
    assert.deepEqual(shown(fixed, after.diagnostics), [
      [
        2,
        "property-removed",
        '"properties"',
        "removed property includeHistory: callers that send it are now rejected",
      ],
      [
        3,
        "version-ok",
        '"3.0.0"',
        "major change against 2.0.0: version 3.0.0 is enough",
      ],
      // The version is enough, so no stored call is read: the evidence is a made call.
      [
        3,
        "breaking-call",
        "false",
        'a call the published version accepts, {"reference":"PMT-000000","includeHistory":false}, would now be rejected: $.includeHistory property "includeHistory" is not allowed',
      ],
    ]);
    assert.equal(ls.statuses.at(-1)!.text, "against 2.0.0: major, ok");
  });
});

Deno.test("LSP: a compatible change is information at its node and on an enough version", async () => {
  await withServer(async (ls, ws) => {
    const text = fs.readFileSync(
      path.join(FIXTURES, "fx.quote.tool.json"),
      "utf8",
    );
    const file = ws.write("fx.quote.tool.json", text);
    const p = await ls.open(file);
    assert.deepEqual(shown(text, p.diagnostics), [
      [
        3,
        "version-ok",
        '"1.1.0"',
        "minor change against 1.0.0: version 1.1.0 is enough",
      ],
      [
        3,
        "property-added",
        '"channel"',
        "added optional property channel: callers may now send it",
      ],
    ]);
    assert.equal(ls.statuses.at(-1)!.text, "against 1.0.0: minor, ok");
    assert.equal(ls.statuses.at(-1)!.severity, "information");
  });
});

Deno.test("LSP: a published version with different content is an immutability error on version", async () => {
  await withServer(async (ls, ws) => {
    const draft = lookupDraft((s) => (s.title = "Look up a payment"));
    const file = ws.write("lookup.tool.json", draft);
    const text = fs.readFileSync(file, "utf8");
    const p = await ls.open(file);
    assert.deepEqual(shown(text, p.diagnostics), [
      [
        1,
        "immutable",
        '"2.0.0"',
        "payments.lookup@2.0.0 is already published with different content; published versions are immutable — use 2.0.1 (a patch change against 2.0.0)",
      ],
    ]);
    assert.equal(
      ls.statuses.at(-1)!.text,
      "against 2.0.0: version already published",
    );
    // The quick fix: the version the change needs (a patch here).
    const uri = fileUri(file);
    const actions: CodeAction[] = await ls.connection.sendRequest(
      "textDocument/codeAction",
      {
        textDocument: { uri },
        range: p.diagnostics[0].range,
        context: { diagnostics: [p.diagnostics[0]], only: ["quickfix"] },
      },
    );
    assert.deepEqual(
      actions.map((a) => [a.title, a.diagnostics?.map((d) => d.code)]),
      [
        ["Set version to 2.0.1", ["immutable"]],
      ],
    );
    assert.deepEqual(actions[0].edit!.changes![uri], [
      { range: p.diagnostics[0].range, newText: '"2.0.1"' },
    ]);
  });
});

Deno.test("LSP: stored calls a non-major bump rejects are an error at the node that rejects them", async () => {
  await withServer(async (ls, ws) => {
    const draft = lookupDraft((s) => {
      s.version = "2.1.0";
      s.inputSchema.properties.reference.pattern = "^PMT-00[0-9]{4}$";
    });
    const file = ws.write("lookup.tool.json", draft);
    const text = fs.readFileSync(file, "utf8");
    const p = await ls.open(file);
    const rejected = p.diagnostics.filter((d) => d.code === "rejected-calls");
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0].severity, 1);
    assert.match(
      rejected[0].message,
      /^\d+ stored calls are rejected here: \$\.reference must match pattern \^PMT-00\[0-9\]\{4\}\$$/,
    );
    assert.equal(textAt(text, rejected[0].range), '"reference"');
    // The count is the library's replay of the 2.x calls.
    const calls = [...EstateDir.open(ws.estate).readCalls("payments.lookup")]
      .filter((c) =>
        c.version.startsWith("2.") &&
        !/^PMT-00[0-9]{4}$/.test(
          (c.arguments as { reference: string }).reference,
        )
      );
    assert.equal(rejected[0].message.split(" ")[0], String(calls.length));
  });
});

Deno.test("LSP: checkSchema issues are errors at their nodes: unsupported keyword, dangling $ref, unsafe pattern, root not an object", async () => {
  await withServer(async (ls, ws) => {
    const draft = lookupDraft((s) => {
      s.version = "3.0.0";
      s.inputSchema.properties.reference.pattern = "^(PMT)-\\1$";
      s.inputSchema.properties.counterparty = { $ref: "#/$defs/party" };
      s.inputSchema.unevaluatedProperties = false;
    });
    const file = ws.write("lookup.tool.json", draft);
    const text = fs.readFileSync(file, "utf8");
    const p = await ls.open(file);
    const schema = p.diagnostics.filter((d) => d.code === "schema");
    assert.deepEqual(
      schema.map((d) => [d.severity, textAt(text, d.range)]),
      [
        [1, '"^(PMT)-\\\\1$"'],
        [1, '"#/$defs/party"'],
        [1, "false"],
      ],
    );
    assert.match(schema[1].message, /^dangling \$ref "#\/\$defs\/party"/);
    assert.match(schema[0].message, /pattern/);
    assert.match(schema[2].message, /unevaluatedProperties/);

    const notObject = lookupDraft((s) => {
      s.version = "3.0.0";
      s.inputSchema = { type: "array" };
    });
    const file2 = ws.write("array.tool.json", notObject);
    const text2 = fs.readFileSync(file2, "utf8");
    const p2 = await ls.open(file2);
    const root = p2.diagnostics.filter((d) => d.code === "schema");
    assert.deepEqual(shown(text2, root), [
      [
        1,
        "schema",
        '"inputSchema"',
        'a tool input schema must have type "object" at its root',
      ],
    ]);
  });
});

Deno.test("LSP: description lint warns at the description; an empty description is a spec error there", async () => {
  await withServer(async (ls, ws) => {
    const draft = lookupDraft((s) => {
      s.version = "2.0.1";
      s.description =
        "Owned by payments-platform; needs the payments:read scope. Looks up a payment.";
    });
    const file = ws.write("lookup.tool.json", draft);
    const text = fs.readFileSync(file, "utf8");
    const p = await ls.open(file);
    const lint = p.diagnostics.filter((d) => d.code === "description");
    assert.equal(lint.length, 3);
    for (const d of lint) {
      assert.equal(d.severity, 2);
      assert.equal(textAt(text, d.range), JSON.stringify(draft.description));
    }
    assert.deepEqual(lint.map((d) => d.message), [
      'description names the required scope "payments:read": platform metadata belongs in the spec, not the prompt',
      'description names the owner "payments-platform": platform metadata belongs in the spec, not the prompt',
      'description mentions "Owned by": access control and ownership belong in the spec, not the prompt',
    ]);

    const empty = ws.write(
      "empty.tool.json",
      lookupDraft((s) => (s.description = "")),
    );
    const p2 = await ls.open(empty);
    assert.deepEqual(shown(fs.readFileSync(empty, "utf8"), p2.diagnostics), [
      [1, "spec", '""', "description must not be empty"],
    ]);
  });
});

Deno.test("LSP: a file that is not a tool spec gets one error per problem, at the field or the opening brace", async () => {
  await withServer(async (ls, ws) => {
    const draft = lookupDraft((s) => {
      delete s.sideEffect;
      s.dataClassification = "secret";
      s.extra = true;
    });
    const file = ws.write("lookup.tool.json", draft);
    const text = fs.readFileSync(file, "utf8");
    const p = await ls.open(file);
    assert.deepEqual(shown(text, p.diagnostics), [
      [1, "spec", "{", "sideEffect is required"],
      [
        1,
        "spec",
        '"secret"',
        'dataClassification must be one of public, internal, confidential, restricted, got "secret"',
      ],
      [1, "spec", '"extra"', "unknown field extra"],
    ]);
    assert.equal(
      ls.statuses.at(-1)!.text,
      "not a valid tool spec (3 problems)",
    );
  });
});

Deno.test("LSP: typing is debounced into one check of the last version; broken JSON is one unreadable error, as estate check says", async () => {
  await withServer(async (ls, ws) => {
    const text = fs.readFileSync(
      path.join(FIXTURES, "payments.lookup.tool.json"),
      "utf8",
    );
    const file = ws.write("payments.lookup.tool.json", text);
    const uri = fileUri(file);
    await ls.open(file);
    const before = ls.published.length;
    const next = ls.nextDiagnostics(uri);
    // Three keystrokes in quick succession: 2.1.0 → 3.1.0 → 3.0.0 (by full-text changes).
    for (
      const [version, v] of [[2, "3.1.0"], [3, "3.0.1"], [4, "3.0.0"]] as const
    ) {
      await ls.connection.sendNotification("textDocument/didChange", {
        textDocument: { uri, version },
        contentChanges: [{ text: text.replace("2.1.0", v) }],
      });
    }
    const p = await next;
    assert.equal(p.version, 4);
    assert.equal(
      ls.published.length,
      before + 1,
      "one check for three changes",
    );
    assert.ok(
      p.diagnostics.some((d) => d.code === "version-ok" && /3\.0\.0 is enough/.test(d.message)),
    );

    const broken = ls.nextDiagnostics(uri);
    await ls.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: 5 },
      contentChanges: [{ text: text.slice(0, 40) }],
    });
    const unreadable = (await broken).diagnostics;
    assert.deepEqual(unreadable.map((d) => [d.severity, d.code]), [[
      1,
      "unreadable",
    ]]);
    assert.match(
      unreadable[0].message,
      /payments\.lookup\.tool\.json is not valid JSON: .* at line 3 column \d+$/,
    );
    assert.equal(ls.statuses.at(-1)!.text, "not valid JSON");
  }, { debounceMs: 150 });
});

Deno.test("LSP: with run onSave, edits wait for the save", async () => {
  await withServer(async (ls, ws) => {
    const text = fs.readFileSync(
      path.join(FIXTURES, "payments.lookup.tool.json"),
      "utf8",
    );
    const file = ws.write("payments.lookup.tool.json", text);
    const uri = fileUri(file);
    await ls.open(file);
    const before = ls.published.length;
    await ls.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: text.replace("2.1.0", "3.0.0") }],
    });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(ls.published.length, before, "no check before the save");
    const next = ls.nextDiagnostics(uri);
    await ls.connection.sendNotification("textDocument/didSave", {
      textDocument: { uri },
    });
    const p = await next;
    assert.equal(p.version, 2);
    assert.ok(!p.diagnostics.some((d) => d.severity === 1));
  }, { settings: { run: "onSave" } });
});

Deno.test("LSP: a change to the estate folder on disk re-checks open files", async () => {
  await withServer(async (ls, ws) => {
    const text = fs.readFileSync(
      path.join(FIXTURES, "fx.quote.tool.json"),
      "utf8",
    );
    const file = ws.write("fx.quote.tool.json", text);
    const uri = fileUri(file);
    const first = await ls.open(file);
    assert.ok(first.diagnostics.some((d) => d.code === "version-ok"));
    // Someone publishes fx.quote@1.1.0 with other content.
    const other = corpusSpec("fx.quote", "1.0.0");
    other.version = "1.1.0";
    other.title = "Quote an FX rate";
    const { file: published } = EstateDir.open(ws.estate).publish(
      other as never,
    );
    const next = ls.nextDiagnostics(uri);
    await ls.connection.sendNotification("workspace/didChangeWatchedFiles", {
      changes: [{ uri: fileUri(published), type: 1 }],
    });
    const p = await next;
    assert.deepEqual(
      p.diagnostics.map((d) => [d.code, d.message]),
      [[
        "immutable",
        "fx.quote@1.1.0 is already published with different content; published versions are immutable — use 1.2.0 (a minor change against 1.1.0)",
      ], [
        "property-added",
        "added optional property channel: callers may now send it",
      ]],
    );
    assert.equal(
      ls.statuses.at(-1)!.text,
      "against 1.1.0: version already published",
    );
  });
});

Deno.test("LSP: closing a file clears its diagnostics", async () => {
  await withServer(async (ls, ws) => {
    const file = ws.write(
      "payments.lookup.tool.json",
      fs.readFileSync(path.join(FIXTURES, "payments.lookup.tool.json"), "utf8"),
    );
    const uri = fileUri(file);
    const p = await ls.open(file);
    assert.ok(p.diagnostics.length > 0);
    const next = ls.nextDiagnostics(uri);
    await ls.connection.sendNotification("textDocument/didClose", {
      textDocument: { uri },
    });
    assert.deepEqual((await next).diagnostics, []);
  });
});

Deno.test("LSP: hover on version shows the baseline, every change and a call the change breaks; elsewhere nothing", async () => {
  await withServer(async (ls, ws) => {
    const file = ws.write(
      "payments.lookup.tool.json",
      fs.readFileSync(path.join(FIXTURES, "payments.lookup.tool.json"), "utf8"),
    );
    const uri = fileUri(file);
    await ls.open(file);
    const hover: Hover = await ls.connection.sendRequest("textDocument/hover", {
      textDocument: { uri },
      position: { line: 2, character: 16 },
    });
    assert.deepEqual(hover.contents, {
      kind: "markdown",
      value: [
        "**payments.lookup@2.1.0** against **payments.lookup@2.0.0** (published), the newest published version in `corpus/`",
        "",
        "**Error:** change is major against payments.lookup@2.0.0 (published): removed property includeHistory — version must be at least 3.0.0",
        "",
        "Changes (1), **major** overall:",
        "",
        "- `$.properties.includeHistory` **major**: removed property includeHistory: callers that send it are now rejected",
        "",
        "36 stored calls of the 2.x line are rejected by this schema.",
        "",
        "**A call it breaks** (a stored call):",
        "",
        "```json",
        JSON.stringify(
          { reference: "PMT-410814", includeHistory: true },
          null,
          2,
        ),
        "```",
        "",
        'The call of 2026-08-26 by wholesale-operator (to 2.0.0) with {"reference":"PMT-410814","includeHistory":true} would now be rejected: $.includeHistory property "includeHistory" is not allowed.',
      ].join("\n"),
    });
    const onKey: Hover = await ls.connection.sendRequest("textDocument/hover", {
      textDocument: { uri },
      position: { line: 2, character: 4 },
    });
    assert.equal(
      (onKey.contents as { value: string }).value,
      (hover.contents as { value: string }).value,
    );
    const elsewhere = await ls.connection.sendRequest("textDocument/hover", {
      textDocument: { uri },
      position: { line: 1, character: 12 },
    });
    assert.equal(elsewhere, null);
  });
});

Deno.test("LSP: toolEstate/checkAll checks every tool file in the workspace into diagnostics", async () => {
  await withServer(async (ls, ws) => {
    const breaking = ws.write(
      "payments.lookup.tool.json",
      fs.readFileSync(path.join(FIXTURES, "payments.lookup.tool.json"), "utf8"),
    );
    const minor = ws.write(
      "fx.quote.tool.json",
      fs.readFileSync(path.join(FIXTURES, "fx.quote.tool.json"), "utf8"),
    );
    fs.mkdirSync(path.join(ws.dir, "node_modules", "x"), { recursive: true });
    fs.writeFileSync(
      path.join(ws.dir, "node_modules", "x", "skip.tool.json"),
      "{}",
    );
    fs.writeFileSync(path.join(ws.dir, "drafts", "notes.json"), "{}");
    const got = [
      ls.nextDiagnostics(fileUri(breaking)),
      ls.nextDiagnostics(fileUri(minor)),
    ];
    const result = await ls.connection.sendRequest("toolEstate/checkAll");
    assert.deepEqual(result, {
      checked: 2,
      failed: 1,
      files: [
        { uri: fileUri(minor), errors: 0, warnings: 0 },
        { uri: fileUri(breaking), errors: 2, warnings: 1 },
      ],
    });
    const [b, m] = await Promise.all(got);
    assert.deepEqual(b.diagnostics.map((d) => d.code), [
      "version-too-low",
      "rejected-calls",
      "property-removed",
      "breaking-call",
    ]);
    assert.deepEqual(m.diagnostics.map((d) => d.code), [
      "version-ok",
      "property-added",
    ]);
  });
});

Deno.test("LSP: a missing estate folder is a warning on version, and the schema is still checked", async () => {
  await withServer(async (ls, ws) => {
    const draft = lookupDraft((
      s,
    ) => (s.inputSchema.properties.x = { $ref: "#/nowhere" }));
    const file = ws.write("lookup.tool.json", draft);
    const text = fs.readFileSync(file, "utf8");
    const p = await ls.open(file);
    assert.deepEqual(shown(text, p.diagnostics), [
      [
        1,
        "schema",
        '"#/nowhere"',
        'dangling $ref "#/nowhere": no such location in this schema',
      ],
      [
        2,
        "estate",
        '"2.0.0"',
        `not checked against the estate: Cannot open the estate ${
          path.join(ws.dir, "no-such-estate")
        }: no such folder`,
      ],
    ]);
    assert.equal(ls.statuses.at(-1)!.severity, "error");
  }, { settings: { estateFolder: "no-such-estate" } });
});

Deno.test("LSP: a workspace folder added later brings its own estate", async () => {
  await withServer(async (ls, ws) => {
    const other = makeWorkspace();
    try {
      const file = other.write(
        "fx.quote.tool.json",
        fs.readFileSync(path.join(FIXTURES, "fx.quote.tool.json"), "utf8"),
      );
      const uri = fileUri(file);
      // Outside every workspace folder, the file's own folder is the base: drafts/corpus is missing.
      const before = await ls.open(file);
      assert.deepEqual(before.diagnostics.map((d) => d.code), ["estate"]);
      const next = ls.nextDiagnostics(uri);
      await ls.connection.sendNotification(
        "workspace/didChangeWorkspaceFolders",
        {
          event: {
            added: [{ uri: fileUri(other.dir), name: "other" }],
            removed: [],
          },
        },
      );
      const after = await next;
      assert.deepEqual(after.diagnostics.map((d) => d.code), [
        "version-ok",
        "property-added",
      ]);
      assert.ok(ws.dir !== other.dir);
    } finally {
      other.remove();
    }
  });
});
