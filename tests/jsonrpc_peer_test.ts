/**
 * `JsonRpcPeer` over the in-memory linked pair: requests and notifications in both directions,
 * cancellation and progress both ways, timeouts on a fake clock, a closed transport, out-of-order
 * answers, garbage on the wire — and a property: random interleavings of requests, notifications,
 * cancellations, timeouts and releases leave no pending entry on either side and settle every
 * request once, with its own answer.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  createLinkedTransports,
  ERROR_CODES,
  JsonRpcError,
  type JsonRpcMessage,
  JsonRpcPeer,
  PeerError,
  type PeerOptions,
  type PeerTimers,
  type Progress,
  type ProtocolErrorReport,
  type RequestContext,
  type Transport,
  type TransportSendOptions,
} from "../mod.ts";

/** A transport that records what is sent through it (and with which options). */
interface Tapped extends Transport {
  sent: { message: JsonRpcMessage; options?: TransportSendOptions }[];
}

function tap(
  inner: Transport,
  cancel?: (id: string | number) => boolean,
): Tapped {
  const t: Tapped = {
    sent: [],
    send(message, options) {
      t.sent.push(options === undefined ? { message } : { message, options });
      return inner.send(message, options);
    },
    close: () => inner.close(),
    ...(cancel ? { cancel } : {}),
  };
  inner.onmessage = (m) => t.onmessage?.(m);
  inner.onclose = () => t.onclose?.();
  return t;
}

/** A fake clock for the peers' timers. */
class Clock implements PeerTimers {
  now = 0;
  #next = 1;
  readonly #due = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const handle = this.#next++;
    this.#due.set(handle, { at: this.now + ms, fn });
    return handle;
  }
  clearTimeout(handle: unknown): void {
    this.#due.delete(handle as number);
  }
  get armed(): number {
    return this.#due.size;
  }
  /** Moves the clock, firing what falls due in order. */
  advance(ms: number): void {
    const until = this.now + ms;
    while (true) {
      const next = [...this.#due].filter(([, t]) =>
        t.at <= until
      ).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!next) {
        break;
      }
      this.#due.delete(next[0]);
      this.now = next[1].at;
      next[1].fn();
    }
    this.now = until;
  }
}

/** Lets every queued message and handler run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 40; i++) await Promise.resolve();
}

interface Pair {
  a: JsonRpcPeer;
  b: JsonRpcPeer;
  wireA: Tapped;
  wireB: Tapped;
  reportsA: ProtocolErrorReport[];
  reportsB: ProtocolErrorReport[];
  clock: Clock;
}

function pair(
  options: PeerOptions = {},
  cancelA?: (id: string | number) => boolean,
): Pair {
  const [x, y] = createLinkedTransports();
  const wireA = tap(x, cancelA), wireB = tap(y);
  const clock = new Clock();
  const reportsA: ProtocolErrorReport[] = [],
    reportsB: ProtocolErrorReport[] = [];
  const a = new JsonRpcPeer(wireA, {
    timers: clock,
    onProtocolError: (r) => reportsA.push(r),
    ...options,
  });
  const b = new JsonRpcPeer(wireB, {
    timers: clock,
    onProtocolError: (r) => reportsB.push(r),
    ...options,
  });
  return { a, b, wireA, wireB, reportsA, reportsB, clock };
}

/** A peer facing a raw transport end the test drives by hand. */
function raw(options: PeerOptions = {}): {
  peer: JsonRpcPeer;
  far: Transport;
  received: unknown[];
  reports: ProtocolErrorReport[];
  clock: Clock;
} {
  const [near, far] = createLinkedTransports();
  const received: unknown[] = [];
  far.onmessage = (m) => received.push(m);
  const reports: ProtocolErrorReport[] = [];
  const clock = new Clock();
  const peer = new JsonRpcPeer(near, {
    timers: clock,
    onProtocolError: (r) => reports.push(r),
    ...options,
  });
  return { peer, far, received, reports, clock };
}

function methods(t: Tapped): string[] {
  return t.sent.map(({ message }) =>
    "method" in message ? message.method : `response ${JSON.stringify(message.id)}`
  );
}

function rejectsWith(kind: PeerError["kind"], message?: RegExp | string) {
  return (e: unknown): boolean => {
    assert.ok(e instanceof PeerError, `expected a PeerError, got ${e}`);
    assert.equal(e.kind, kind);
    if (typeof message === "string") assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return true;
  };
}

// --- requests and answers, both ways -------------------------------------------------------

Deno.test("JsonRpcPeer answers requests in both directions over the linked pair", async () => {
  const { a, b } = pair();
  b.onRequest("tools/list", () => ({ tools: ["t"] }));
  a.onRequest(
    "roots/list",
    (_params, ctx) => ({ roots: [], askedAs: ctx.method }),
  );
  a.onRequest("sampling/createMessage", (params) => ({ echo: params }));
  assert.deepEqual(await a.request("tools/list"), { tools: ["t"] });
  // The server side asks the client: what the next issue's sampling and roots need.
  assert.deepEqual(await b.request("roots/list"), {
    roots: [],
    askedAs: "roots/list",
  });
  assert.deepEqual(
    await b.request("sampling/createMessage", { maxTokens: 5 }),
    {
      echo: { maxTokens: 5 },
    },
  );
  assert.deepEqual([a.pendingRequests, b.pendingRequests, a.activeRequests], [
    0,
    0,
    0,
  ]);
  await a.close();
});

Deno.test("JsonRpcPeer numbers requests 1, 2, 3 … and never reuses an id (cancelled, timed out or failed)", async () => {
  const { a, b, wireA, clock } = pair({ cancelOnTimeout: false });
  b.onRequest("slow", () => new Promise(() => {}));
  b.onRequest("fast", () => ({}));
  const cancel = new AbortController();
  const one = a.request("slow", {}, { signal: cancel.signal });
  const two = a.request("slow", {}, { timeoutMs: 5 });
  cancel.abort();
  clock.advance(5);
  await assert.rejects(one, rejectsWith("cancelled"));
  await assert.rejects(two, rejectsWith("timeout"));
  await a.request("fast");
  await assert.rejects(a.request(42 as unknown as string), TypeError);
  await a.request("fast");
  const ids = wireA.sent.flatMap(({ message }) => "id" in message ? [message.id] : []);
  assert.deepEqual(ids, [1, 2, 3, 5]);
  await a.close();
});

Deno.test("an error answer rejects with JsonRpcError carrying code, message, data and requestId", async () => {
  const { a, b } = pair();
  b.onRequest("resources/read", () => {
    throw new JsonRpcError(-32002, "Resource demo://x not found", {
      data: { uri: "demo://x" },
    });
  });
  await assert.rejects(
    a.request("resources/read", { uri: "demo://x" }),
    (e) => {
      assert.ok(e instanceof JsonRpcError);
      assert.ok(!(e instanceof PeerError));
      assert.deepEqual([e.code, e.message, e.data, e.requestId], [
        -32002,
        "Resource demo://x not found",
        { uri: "demo://x" },
        1,
      ]);
      return true;
    },
  );
  await a.close();
});

Deno.test("a request with no handler is answered -32601 (ERROR_CODES.METHOD_NOT_FOUND) naming the method", async () => {
  const { a, b, wireB } = pair();
  await assert.rejects(
    a.request("elicitation/create", {}),
    (e) =>
      e instanceof JsonRpcError && e.code === ERROR_CODES.METHOD_NOT_FOUND &&
      e.message === "Method not found: elicitation/create",
  );
  b.onOtherRequest((_params, ctx) => ({ caught: ctx.method }));
  assert.deepEqual(await a.request("any/thing"), { caught: "any/thing" });
  const off = b.onRequest("any/thing", () => ({ own: true }));
  assert.deepEqual(await a.request("any/thing"), { own: true });
  off();
  b.onOtherRequest(undefined);
  await assert.rejects(
    a.request("any/thing"),
    (e) => e instanceof JsonRpcError,
  );
  assert.equal(wireB.sent.length, 4);
  await a.close();
});

Deno.test("a handler's own throw is answered -32603 Internal error (details stay home, reported)", async () => {
  const { a, b, reportsB } = pair();
  b.onRequest("boom", () => {
    throw new Error("secret stack detail");
  });
  b.onRequest(
    "async-boom",
    () => Promise.reject(new RangeError("also secret")),
  );
  b.onRequest("nothing", () => undefined);
  for (const method of ["boom", "async-boom"]) {
    await assert.rejects(a.request(method), (e) => {
      assert.ok(e instanceof JsonRpcError);
      assert.deepEqual([e.code, e.message, e.data], [
        -32603,
        "Internal error",
        undefined,
      ]);
      return true;
    });
  }
  assert.deepEqual(
    reportsB.map((r) => r.kind === "handler-failed" && r.method),
    [
      "boom",
      "async-boom",
    ],
  );
  assert.deepEqual(await a.request("nothing"), {}, "undefined is sent as {}");
  await a.close();
});

Deno.test("responses arriving out of order each settle their own request", async () => {
  const { peer, far } = raw();
  const requests: { id: number; method: string }[] = [];
  far.onmessage = (m) => requests.push(m as { id: number; method: string });
  const calls = ["a", "b", "c", "d"].map((m) => peer.request(m));
  await flush();
  for (const r of [...requests].reverse()) {
    await far.send({
      jsonrpc: "2.0",
      id: r.id,
      result: { answered: r.method },
    });
  }
  assert.deepEqual(
    (await Promise.all(calls)).map((r) => (r as { answered: string }).answered),
    ["a", "b", "c", "d"],
  );
  await peer.close();
});

// --- notifications ---------------------------------------------------------------------------

Deno.test("notifications are dispatched both ways and never answered, not even when they fail", async () => {
  const { a, b, wireA, wireB, reportsB } = pair();
  const seen: string[] = [];
  b.onNotification(
    "notifications/initialized",
    (_p, ctx) => void seen.push(`b ${ctx.method}`),
  );
  a.onNotification(
    "notifications/tools/list_changed",
    () => void seen.push("a list_changed"),
  );
  b.onNotification("explodes", () => {
    throw new Error("handler bug");
  });
  b.onOtherNotification((_p, ctx) => void seen.push(`b other ${ctx.method}`));
  await a.notify("notifications/initialized");
  await b.notify("notifications/tools/list_changed");
  await a.notify("explodes");
  await a.notify("something/else", { x: 1 });
  await a.notify("notifications/cancelled", { requestId: 99 }); // names nothing: ignored
  await flush();
  assert.deepEqual(seen, [
    "b notifications/initialized",
    "a list_changed",
    "b other something/else",
    "b other notifications/cancelled",
  ]);
  assert.deepEqual(
    wireB.sent.filter(({ message }) => !("method" in message)),
    [],
    "no response to a notification",
  );
  assert.deepEqual(methods(wireA), [
    "notifications/initialized",
    "explodes",
    "something/else",
    "notifications/cancelled",
  ]);
  assert.deepEqual(reportsB.map((r) => r.kind), ["handler-failed"]);
  await a.close();
});

// --- cancellation ------------------------------------------------------------------------------

async function cancellationOneWay(from: "client" | "server"): Promise<void> {
  const p = pair();
  const [sender, receiver, senderWire, receiverWire] = from === "client"
    ? [p.a, p.b, p.wireA, p.wireB]
    : [p.b, p.a, p.wireB, p.wireA];
  let context!: RequestContext;
  let finish!: () => void;
  receiver.onRequest("elicitation/create", (_params, ctx) => {
    context = ctx;
    return new Promise((resolve) => (finish = () => resolve({ late: true })));
  });
  const controller = new AbortController();
  const call = sender.request("elicitation/create", {}, {
    signal: controller.signal,
  });
  await flush();
  assert.equal(receiver.activeRequests, 1);
  controller.abort("user gave up");
  await assert.rejects(
    call,
    rejectsWith("cancelled", "request elicitation/create was cancelled"),
  );
  await flush();
  assert.equal(context.signal.aborted, true);
  assert.equal(context.signal.reason, "user gave up");
  assert.equal(receiver.activeRequests, 0);
  finish(); // the handler ends anyway: its result is not sent
  await flush();
  assert.deepEqual(methods(senderWire), [
    "elicitation/create",
    "notifications/cancelled",
  ]);
  assert.deepEqual(senderWire.sent[1].message, {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 1, reason: "user gave up" },
  });
  assert.deepEqual(
    receiverWire.sent,
    [],
    "a cancelled request gets no response",
  );
  assert.equal(sender.pendingRequests, 0);
  await p.a.close();
}

Deno.test("cancellation client → server: notifications/cancelled aborts the handler; no answer follows", () =>
  cancellationOneWay("client"));

Deno.test("cancellation server → client: the same for a request the server sent", () =>
  cancellationOneWay("server"));

Deno.test("a signal aborted before the request sends nothing; one aborted after the answer does nothing", async () => {
  const { a, b, wireA } = pair();
  b.onRequest("ping", () => ({}));
  await assert.rejects(
    a.request("ping", {}, { signal: AbortSignal.abort("early") }),
    rejectsWith("cancelled"),
  );
  const controller = new AbortController();
  await a.request("ping", {}, { signal: controller.signal });
  controller.abort();
  await flush();
  assert.deepEqual(methods(wireA), ["ping"]);
  await a.close();
});

Deno.test("a transport that cancels by its own means (cancel(id) true) gets no notifications/cancelled", async () => {
  const cancelled: (string | number)[] = [];
  const { a, b, wireA } = pair({}, (id) => {
    cancelled.push(id);
    return true;
  });
  b.onRequest("subscriptions/listen", () => new Promise(() => {}));
  const controller = new AbortController();
  const call = a.request("subscriptions/listen", {}, {
    signal: controller.signal,
  });
  controller.abort();
  await assert.rejects(call, rejectsWith("cancelled"));
  assert.deepEqual(cancelled, [1]);
  assert.deepEqual(methods(wireA), ["subscriptions/listen"]);
  await a.close();
});

Deno.test("abandon() stops waiting without telling the other side; the late answer is ignored and reported", async () => {
  const { peer, far, received, reports } = raw();
  const call = peer.start("subscriptions/listen", {});
  await flush();
  call.abandon("the server ended the subscription");
  await assert.rejects(
    call.result,
    rejectsWith("cancelled", "the server ended the subscription"),
  );
  await far.send({ jsonrpc: "2.0", id: call.id, result: {} });
  await flush();
  assert.equal(received.length, 1);
  assert.deepEqual(reports.map((r) => r.kind), ["unknown-response"]);
  call.abandon("again"); // settled already: nothing
  await peer.close();
});

// --- progress ----------------------------------------------------------------------------------

async function progressOneWay(from: "client" | "server"): Promise<void> {
  const p = pair();
  const [sender, receiver, receiverWire] = from === "client"
    ? [p.a, p.b, p.wireB]
    : [p.b, p.a, p.wireA];
  let after!: RequestContext;
  receiver.onRequest("work", (_params, ctx) => {
    after = ctx;
    ctx.progress({ progress: 1, total: 3, message: "one" });
    ctx.progress({ progress: 1, total: 3 }); // not greater: dropped
    ctx.progress({ progress: 0.5 }); // smaller: dropped
    ctx.progress({ progress: 2 });
    return { done: true };
  });
  const seen: Progress[] = [];
  assert.deepEqual(
    await sender.request("work", { _meta: { other: "kept" } }, {
      onProgress: (u) => seen.push(u),
    }),
    { done: true },
  );
  assert.deepEqual(seen, [
    { progress: 1, total: 3, message: "one" },
    { progress: 2, total: undefined, message: undefined },
  ]);
  after.progress({ progress: 9 }); // after the answer: nothing
  await flush();
  const request = (from === "client" ? p.wireA : p.wireB).sent[0]
    .message as unknown as {
      id: number;
      params: { _meta: Record<string, unknown> };
    };
  assert.deepEqual(request.params._meta, {
    other: "kept",
    progressToken: request.id,
  });
  assert.equal(after.progressToken, request.id);
  assert.deepEqual(
    receiverWire.sent.map(({ message, options }) => [
      "method" in message ? message.method : "response",
      options?.relatedRequestId,
    ]),
    [
      ["notifications/progress", request.id],
      ["notifications/progress", request.id],
      ["response", undefined],
    ],
  );
  await p.a.close();
}

Deno.test("progress client → server: a token is sent, updates only grow, none after the answer", () =>
  progressOneWay("client"));

Deno.test("progress server → client: the same for a request the server sent", () =>
  progressOneWay("server"));

Deno.test("a request without onProgress carries no token, and its handler's progress() sends nothing", async () => {
  const { a, b, wireA, wireB } = pair();
  b.onRequest("work", (_p, ctx) => {
    assert.equal(ctx.progressToken, undefined);
    ctx.progress({ progress: 1 });
    return {};
  });
  await a.request("work", { x: 1 });
  assert.deepEqual((wireA.sent[0].message as { params: unknown }).params, {
    x: 1,
  });
  assert.deepEqual(methods(wireB), ["response 1"]);
  await assert.rejects(
    a.request("work", [1, 2], { onProgress: () => {} }),
    TypeError,
  );
  await a.close();
});

// --- timeouts ----------------------------------------------------------------------------------

Deno.test("a request times out as PeerError timeout, cancels on the other side, and ignores the late answer", async () => {
  const { a, b, wireA, reportsA, clock } = pair({ requestTimeoutMs: 100 });
  let context!: RequestContext;
  let finish!: () => void;
  b.onRequest("slow", (_p, ctx) => {
    context = ctx;
    return new Promise((resolve) => (finish = () => resolve({})));
  });
  const call = a.request("slow");
  await flush();
  clock.advance(99);
  assert.equal(a.pendingRequests, 1);
  clock.advance(1);
  await assert.rejects(
    call,
    rejectsWith("timeout", "request slow timed out after 100 ms"),
  );
  await flush();
  assert.equal(context.signal.aborted, true);
  assert.deepEqual(methods(wireA), ["slow", "notifications/cancelled"]);
  finish();
  await flush();
  assert.deepEqual(reportsA, []);
  assert.equal(clock.armed, 0);
  await a.close();
});

Deno.test("cancelOnTimeout: false only stops waiting; a late answer is reported as unknown-response", async () => {
  const { peer, far, received, reports, clock } = raw({
    cancelOnTimeout: false,
  });
  const call = peer.request("server/discover", {}, { timeoutMs: 30 });
  clock.advance(30);
  await assert.rejects(
    call,
    rejectsWith("timeout", "request server/discover timed out after 30 ms"),
  );
  await flush();
  assert.equal(received.length, 1);
  await far.send({ jsonrpc: "2.0", id: 1, result: {} });
  await flush();
  assert.deepEqual(reports.map((r) => r.kind), ["unknown-response"]);
  await peer.close();
});

Deno.test("timeoutMs: Infinity arms no timer; a bad timeoutMs is a TypeError; long ones re-arm", async () => {
  const { a, b, clock } = pair();
  b.onRequest("hang", () => new Promise(() => {}));
  const forever = a.request("hang", {}, { timeoutMs: Infinity });
  assert.equal(clock.armed, 0);
  await assert.rejects(a.request("hang", {}, { timeoutMs: -1 }), TypeError);
  await assert.rejects(a.request("hang", {}, { timeoutMs: NaN }), TypeError);
  const month = a.request("hang", {}, { timeoutMs: 30 * 86_400_000 });
  clock.advance(2_147_483_647);
  assert.equal(
    a.pendingRequests,
    2,
    "past one platform timer, the month is not over",
  );
  clock.advance(30 * 86_400_000 - 2_147_483_647);
  await assert.rejects(month, rejectsWith("timeout"));
  await a.close("bye");
  await assert.rejects(forever, rejectsWith("closed", "bye"));
});

// --- closing -----------------------------------------------------------------------------------

Deno.test("a closed transport fails waiting requests (PeerError closed), aborts handlers, and closes the peer once", async () => {
  const { a, b, clock } = pair();
  let handler!: RequestContext;
  b.onRequest("hang", (_p, ctx) => {
    handler = ctx;
    return new Promise(() => {});
  });
  a.onRequest("hang", () => new Promise(() => {}));
  let closes = 0;
  a.onClose(() => closes++);
  const fromA = a.request("hang");
  const fromB = b.request("hang");
  await flush();
  await b.close("b went away"); // closes the shared transport: a learns it from onclose
  await assert.rejects(fromB, rejectsWith("closed", "b went away"));
  await assert.rejects(fromA, rejectsWith("closed", "the connection closed"));
  assert.equal(handler.signal.aborted, true);
  assert.deepEqual([a.closed, b.closed, closes], [true, true, 1]);
  assert.deepEqual(
    [a.pendingRequests, a.activeRequests, b.pendingRequests, b.activeRequests],
    [0, 0, 0, 0],
  );
  assert.equal(clock.armed, 0);
  await assert.rejects(
    a.request("hang"),
    rejectsWith("closed", "the connection closed"),
  );
  await assert.rejects(a.notify("x"), rejectsWith("closed"));
  await a.close(); // already closed: nothing
  assert.equal(closes, 1);
});

Deno.test("a send that fails rejects with the transport's own error and leaves nothing pending", async () => {
  class Refused extends Error {}
  const [near] = createLinkedTransports();
  const failing: Transport = {
    send: () => Promise.reject(new Refused("HTTP 404: session ended")),
    close: () => near.close(),
  };
  const throwing: Transport = {
    send: () => {
      throw new Refused("synchronously");
    },
    close: () => Promise.resolve(),
  };
  for (const transport of [failing, throwing]) {
    const peer = new JsonRpcPeer(transport);
    await assert.rejects(peer.request("tools/list"), Refused);
    assert.equal(peer.pendingRequests, 0);
    await assert.rejects(peer.notify("x"), Refused);
    await peer.close();
  }
});

// --- garbage -----------------------------------------------------------------------------------

Deno.test("garbage is reported and answered -32600; a broken response's answer carries id null", async () => {
  const { peer, far, received, reports } = raw();
  await far.send({ jsonrpc: "2.0", id: 7, method: 5 } as never); // a request gone wrong
  await far.send(
    {
      jsonrpc: "2.0",
      id: 8,
      result: 1,
      error: { code: 1, message: "x" },
    } as never,
  );
  await far.send([1, 2] as never);
  await far.send("hello" as never);
  await flush();
  assert.deepEqual(
    reports.map((r) => r.kind),
    Array(4).fill("invalid-message"),
  );
  assert.deepEqual(
    received.map((m) => {
      const r = m as { id: unknown; error: { code: number; message: string } };
      return [r.id, r.error.code];
    }),
    [[7, -32600], [null, -32600], [null, -32600], [null, -32600]],
  );
  assert.match(
    (received[1] as { error: { message: string } }).error.message,
    /exactly one of result and error/,
  );
  await peer.close();

  const quiet = raw({ answerInvalid: false });
  await quiet.far.send({ jsonrpc: "1.0", id: 1, method: "x" } as never);
  await flush();
  assert.deepEqual([quiet.received, quiet.reports.map((r) => r.kind)], [[], [
    "invalid-message",
  ]]);
  await quiet.peer.close();
});

Deno.test("a response to an unknown id (or to id null) is ignored and reported, never thrown", async () => {
  const { peer, far, received, reports } = raw();
  await far.send({ jsonrpc: "2.0", id: 41, result: {} });
  await far.send({
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "Parse error" },
  });
  await far.send({ jsonrpc: "2.0", id: "1", result: {} }); // "1" is not 1
  await flush();
  assert.deepEqual(
    reports.map((r) => r.kind),
    Array(3).fill("unknown-response"),
  );
  assert.deepEqual(received, []);
  await peer.close();
});

Deno.test("an id already in use by a request being handled is refused -32600", async () => {
  const { peer, far, received } = raw();
  peer.onRequest("hang", () => new Promise(() => {}));
  await far.send({ jsonrpc: "2.0", id: "x", method: "hang" });
  await far.send({ jsonrpc: "2.0", id: "x", method: "hang" });
  await flush();
  assert.deepEqual(received, [{
    jsonrpc: "2.0",
    id: "x",
    error: {
      code: -32600,
      message: 'Invalid Request: id "x" is already in use',
    },
  }]);
  assert.equal(peer.activeRequests, 1);
  await peer.close();
});

Deno.test("a handler's notify() and request() are related to its request (for the HTTP stream it rides)", async () => {
  const { a, b, wireB } = pair();
  a.onRequest("roots/list", () => ({ roots: [] }));
  b.onRequest("tools/call", async (_p, ctx) => {
    await ctx.notify("notifications/message", {
      level: "info",
      data: "asking",
    });
    return await ctx.request("roots/list");
  });
  assert.deepEqual(await a.request("tools/call", { name: "t" }), { roots: [] });
  assert.deepEqual(
    wireB.sent.map(({ message, options }) => [
      "method" in message ? message.method : "response",
      options?.relatedRequestId,
    ]),
    [["notifications/message", 1], ["roots/list", 1], ["response", undefined]],
  );
  await a.close();
});

// --- the law -----------------------------------------------------------------------------------

type Side = "a" | "b";
type Mode = "ok" | "error" | "throw" | "hang";
type Step =
  | {
    do: "request";
    from: Side;
    mode: Mode;
    timeout: number;
    progress: boolean;
  }
  | { do: "notify"; from: Side }
  | { do: "cancel"; from: Side; index: number }
  | { do: "release"; at: Side; index: number }
  | { do: "tick"; ms: number }
  | { do: "flush" }
  | { do: "close"; side: Side };

const side = fc.constantFrom<Side>("a", "b");
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      do: fc.constant("request" as const),
      from: side,
      mode: fc.constantFrom<Mode>("ok", "error", "throw", "hang"),
      timeout: fc.constantFrom(Infinity, 10, 50),
      progress: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ do: fc.constant("notify" as const), from: side }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      do: fc.constant("cancel" as const),
      from: side,
      index: fc.nat(20),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      do: fc.constant("release" as const),
      at: side,
      index: fc.nat(20),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      do: fc.constant("tick" as const),
      ms: fc.constantFrom(1, 10, 60),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ do: "flush" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ do: fc.constant("close" as const), side }),
  },
);

Deno.test("property: random interleavings leak no pending entry, settle every request once with its own answer, answer each id at most once", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
      const p = pair();
      const peers = { a: p.a, b: p.b };
      const wires = { a: p.wireA, b: p.wireB };
      const hanging = { a: [] as (() => void)[], b: [] as (() => void)[] };
      const controllers = {
        a: [] as AbortController[],
        b: [] as AbortController[],
      };
      let settled = 0, issued = 0;
      const wrong: string[] = [];
      for (const s of ["a", "b"] as const) {
        peers[s].onRequest("work", (params, ctx) => {
          const { mode, n } = params as { mode: Mode; n: number };
          ctx.progress({ progress: 1 });
          if (mode === "error") throw new JsonRpcError(-32000, `refused ${n}`);
          if (mode === "throw") throw new Error("bug");
          if (mode === "hang") {
            return new Promise((resolve) => hanging[s].push(() => resolve({ n })));
          }
          return { n };
        });
        peers[s].onNotification("note", () => {});
      }
      for (const s of steps) {
        switch (s.do) {
          case "request": {
            const controller = new AbortController();
            controllers[s.from].push(controller);
            const n = issued++;
            let count = 0;
            peers[s.from].request("work", { mode: s.mode, n }, {
              signal: controller.signal,
              timeoutMs: s.timeout,
              ...(s.progress ? { onProgress: () => {} } : {}),
            }).then((result) => {
              if ((result as { n: number }).n !== n) {
                wrong.push(`request ${n} got ${result}`);
              }
              if (s.mode !== "ok" && s.mode !== "hang") {
                wrong.push(`${s.mode} ${n} resolved`);
              }
            }, (e) => {
              if (!(e instanceof PeerError || e instanceof JsonRpcError)) {
                wrong.push(`request ${n} rejected with ${e}`);
              }
              if (
                e instanceof JsonRpcError && s.mode === "error" &&
                e.message !== `refused ${n}`
              ) {
                wrong.push(`request ${n} got another's error: ${e.message}`);
              }
            }).finally(() => {
              count++;
              settled++;
              if (count !== 1) {
                wrong.push(`request ${n} settled ${count} times`);
              }
            });
            break;
          }
          case "notify":
            peers[s.from].notify("note", {}).catch(() => {});
            break;
          case "cancel":
            controllers[s.from][
              s.index % Math.max(1, controllers[s.from].length)
            ]?.abort();
            break;
          case "release":
            hanging[s.at][s.index % Math.max(1, hanging[s.at].length)]?.();
            break;
          case "tick":
            p.clock.advance(s.ms);
            break;
          case "flush":
            await flush();
            break;
          case "close":
            await peers[s.side].close();
        }
      }
      // Let everything still hanging finish, and every timer run out.
      await flush();
      for (const s of ["a", "b"] as const) {
        for (const release of hanging[s]) release();
      }
      await flush();
      p.clock.advance(1_000);
      await flush();
      // Before anything closes: every request was answered, or ended by a cancel or a timeout.
      assert.deepEqual(wrong, []);
      assert.equal(settled, issued, "every request settled");
      for (const s of ["a", "b"] as const) {
        assert.equal(peers[s].activeRequests, 0, `${s} still handles requests`);
        assert.equal(peers[s].pendingRequests, 0, `${s} still waits`);
      }
      assert.equal(p.clock.armed, 0, "a timer outlived its request");
      await p.a.close();
      await flush();
      for (const s of ["a", "b"] as const) {
        const ids = wires[s].sent.flatMap(({ message }) =>
          "method" in message && "id" in message ? [message.id] : []
        );
        assert.equal(new Set(ids).size, ids.length, `${s} reused an id`);
        const answers = wires[s].sent.flatMap(({ message }) =>
          "method" in message ? [] : [message.id]
        );
        assert.equal(
          new Set(answers).size,
          answers.length,
          `${s} answered an id twice`,
        );
        const other = wires[s === "a" ? "b" : "a"].sent.flatMap(({ message }) =>
          "method" in message && "id" in message ? [message.id] : []
        );
        for (const id of answers) {
          assert.ok(other.includes(id!), `${s} answered ${id}, never asked`);
        }
      }
    }),
    { numRuns: 300 },
  );
});
