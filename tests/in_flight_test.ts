import assert from "node:assert/strict";
import { cancelledRequestId, InFlightRequests, progressReporter } from "../lib/mcp/_in_flight.ts";
import type { JsonRpcId, JsonRpcNotification } from "../mod.ts";

Deno.test("InFlightRequests: an id is in use at most once, and free again once the request ends", () => {
  const table = new InFlightRequests();
  const first = table.begin(1, "tools/call")!;
  assert.ok(first);
  assert.equal(table.begin(1, "tools/list"), undefined);
  assert.equal(table.has(1), true);
  // "1" and 1 are different ids.
  assert.ok(table.begin("1", "tools/list"));
  first.end();
  assert.equal(table.has(1), false);
  const second = table.begin(1, "tools/list")!;
  assert.ok(second);
  first.end(); // a late second end() of the old request leaves the new one alone
  assert.equal(table.has(1), true);
  second.end();
  assert.equal(table.has(1), false);
});

Deno.test("InFlightRequests: a cancelled request is marked and its signal aborts with the client's reason", () => {
  const table = new InFlightRequests();
  const r = table.begin("a", "tools/call")!;
  const other = table.begin("b", "tools/call")!;
  assert.equal(table.cancel("zzz", "why"), false);
  assert.equal(table.cancel("a", "user pressed stop"), true);
  assert.equal(r.cancelled, true);
  assert.equal(r.signal.aborted, true);
  assert.equal(r.signal.reason, "user pressed stop");
  assert.equal(other.cancelled, false);
  assert.equal(other.signal.aborted, false);
  r.end();
  assert.equal(table.cancel("a"), false); // ended: nothing left to cancel
});

Deno.test("InFlightRequests: abortAll() aborts without cancelling, only the methods chosen", () => {
  const table = new InFlightRequests();
  const call = table.begin(1, "tools/call")!;
  const listen = table.begin(2, "subscriptions/listen")!;
  table.abortAll((method) => method === "subscriptions/listen");
  assert.equal(listen.signal.aborted, true);
  assert.equal(call.signal.aborted, false);
  table.abortAll();
  assert.equal(call.signal.aborted, true);
  // Aborted by a closing connection, not cancelled by the client: each still answers.
  assert.equal(call.cancelled, false);
  assert.equal(listen.cancelled, false);
});

Deno.test("cancelledRequestId() reads a notifications/cancelled notification's string or number requestId", () => {
  const n = (params: unknown) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params });
  assert.equal(cancelledRequestId(n({ requestId: 3 })), 3);
  assert.equal(cancelledRequestId(n({ requestId: "x", reason: "late" })), "x");
  assert.equal(cancelledRequestId(n({ requestId: null })), undefined);
  assert.equal(cancelledRequestId(n({ requestId: { id: 3 } })), undefined);
  assert.equal(cancelledRequestId(n({})), undefined);
  assert.equal(cancelledRequestId(n(undefined)), undefined);
  assert.equal(cancelledRequestId({ ...n({ requestId: 3 }), id: 9 }), undefined); // a request
  assert.equal(
    cancelledRequestId({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { requestId: 3 },
    }),
    undefined,
  );
  assert.equal(cancelledRequestId(null), undefined);
  assert.equal(cancelledRequestId("notifications/cancelled"), undefined);
});

function collect(): {
  sent: { message: JsonRpcNotification; related?: JsonRpcId }[];
  notify: (message: JsonRpcNotification, related?: JsonRpcId) => void;
} {
  const sent: { message: JsonRpcNotification; related?: JsonRpcId }[] = [];
  return { sent, notify: (message, related) => sent.push({ message, related }) };
}

Deno.test("progressReporter(): progress goes out only with a token, only increasing, only while running", () => {
  const { sent, notify } = collect();
  const controller = new AbortController();
  const progress = progressReporter({
    token: "tok",
    requestId: 5,
    notify,
    signal: controller.signal,
  });
  progress(1, 4);
  progress(1, 4); // not an increase
  progress(0.5); // a decrease
  progress(2, undefined, "halfway");
  progress(Number.NaN);
  controller.abort();
  progress(3, 4);
  assert.deepEqual(sent, [
    {
      message: {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "tok", progress: 1, total: 4 },
      },
      related: 5,
    },
    {
      message: {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "tok", progress: 2, message: "halfway" },
      },
      related: 5,
    },
  ]);
});

Deno.test("progressReporter(): a missing or non-scalar token sends nothing; a number token is kept as sent", () => {
  for (const token of [undefined, null, {}, ["t"], true]) {
    const { sent, notify } = collect();
    progressReporter({ token, requestId: 1, notify, signal: new AbortController().signal })(1);
    assert.deepEqual(sent, [], JSON.stringify(token));
  }
  const { sent, notify } = collect();
  progressReporter({ token: 0, requestId: "r", notify, signal: new AbortController().signal })(-3);
  assert.deepEqual(sent.map((s) => s.message.params), [{ progressToken: 0, progress: -3 }]);
});
