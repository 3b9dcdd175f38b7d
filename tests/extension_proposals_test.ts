/**
 * The editor shows a draft's approval state over real LSP (`node extension/dist/server.js
 * --stdio`): with an approval policy in the estate's `estate.json`, a major draft of
 * payments.lookup is a `needs-approval` error on its version naming the rule; proposed, the error
 * says the proposal is pending and by whom; approved by another owner, it is `approved`
 * information naming the approver — each after the proposal file changes, as the client's file
 * watcher reports it. The same words as `estate check` (tests/proposals_test.ts).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { ToolSpec } from "../mod.ts";
import { EstateDir, propose } from "../lib/store/mod.ts";
import { corpusSpec, fileUri, makeWorkspace, startServer, textAt } from "./_lsp_client.ts";

Deno.test("LSP: a draft's approval state — needs approval (rule major), pending proposal ID by ana, approved by ben", async () => {
  const ws = makeWorkspace();
  fs.writeFileSync(
    path.join(ws.estate, "estate.json"),
    JSON.stringify({
      approval: { require: ["major"], owners: { "payments-platform": ["ana", "ben"] } },
    }) + "\n",
  );
  const ls = await startServer(ws.dir);
  try {
    const spec = corpusSpec("payments.lookup", "2.0.0");
    spec.version = "3.0.0";
    // deno-lint-ignore no-explicit-any
    delete (spec.inputSchema as any).properties.includeHistory;
    const text = JSON.stringify(spec, null, 2) + "\n";
    const file = ws.write("payments.lookup.tool.json", text);
    const uri = fileUri(file);
    const state = (diagnostics: { code?: unknown; severity?: number; message: string }[]) =>
      diagnostics.filter((d) => d.code === "needs-approval" || d.code === "approved")
        .map((d) => [d.severity, d.code, d.message]);

    const first = await ls.open(file, text);
    assert.deepEqual(state(first.diagnostics), [[
      1,
      "needs-approval",
      "needs approval (rule major: the release is 3.0.0 against 2.0.0, a major change); no proposal of these bytes: estate propose FILE --as YOU",
    ]]);
    const on = first.diagnostics.find((d) => d.code === "needs-approval")!;
    assert.equal(textAt(text, on.range), '"3.0.0"', "on the version");

    const store = EstateDir.open(ws.estate);
    const { proposal } = await propose(store, JSON.parse(text) as ToolSpec, {
      text,
      proposer: "ana",
      at: new Date("2026-12-01T09:00:00Z"),
    });
    const short = proposal.id.slice(0, 12);
    const proposalFile = path.join(ws.estate, "proposals", `${proposal.id}.json`);
    let next = ls.nextDiagnostics(uri);
    await ls.connection.sendNotification("workspace/didChangeWatchedFiles", {
      changes: [{ uri: fileUri(proposalFile), type: 1 }],
    });
    assert.deepEqual(state((await next).diagnostics), [[
      1,
      "needs-approval",
      `needs approval (rule major: the release is 3.0.0 against 2.0.0, a major change); pending proposal ${short} by ana: another owner runs estate approve ${short}`,
    ]]);

    store.recordProposal({
      kind: "approve",
      id: proposal.id,
      principal: "ben",
      at: "2026-12-01T10:00:00.000Z",
    });
    next = ls.nextDiagnostics(uri);
    await ls.connection.sendNotification("workspace/didChangeWatchedFiles", {
      changes: [{ uri: fileUri(proposalFile), type: 2 }],
    });
    assert.deepEqual(state((await next).diagnostics), [[
      3,
      "approved",
      `approved by ben (proposal ${short}): publish writes exactly these bytes`,
    ]]);
    assert.equal(await ls.close(), 0);
  } finally {
    ls.process.kill();
    ws.remove();
  }
});
