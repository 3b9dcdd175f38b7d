import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type ClassifiedMessage,
  ERROR_CODES,
  JsonRpcError,
  type JsonRpcMessage,
  type JsonRpcParams,
  makeError,
  makeNotification,
  makeRequest,
  makeResult,
  MCP_ERROR_CODES,
  parseMessage,
  validateEnvelope,
} from "../lib/jsonrpc/mod.ts";

/** Asserts that `fn` throws a JsonRpcError with this code, exact message and requestId. */
function assertRpcError(
  fn: () => unknown,
  expected: {
    code: number;
    message: string;
    requestId?: string | number | null;
  },
): JsonRpcError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(
    caught instanceof JsonRpcError,
    `expected a JsonRpcError, got ${caught}`,
  );
  assert.equal(caught.code, expected.code);
  assert.equal(caught.message, expected.message);
  assert.equal(caught.requestId, expected.requestId ?? null);
  return caught;
}

function invalid(problem: string, requestId: string | number | null = null) {
  return { code: -32600, message: `Invalid Request: ${problem}`, requestId };
}

// ---------------------------------------------------------------------------------------------
// Error codes and JsonRpcError

Deno.test("ERROR_CODES holds exactly the five JSON-RPC reserved codes, frozen", () => {
  assert.deepEqual({ ...ERROR_CODES }, {
    PARSE_ERROR: -32700,
    INVALID_REQUEST: -32600,
    METHOD_NOT_FOUND: -32601,
    INVALID_PARAMS: -32602,
    INTERNAL_ERROR: -32603,
  });
  assert.ok(Object.isFrozen(ERROR_CODES));
});

Deno.test("MCP_ERROR_CODES keeps MCP's codes apart from JSON-RPC's", () => {
  assert.equal(MCP_ERROR_CODES.RESOURCE_NOT_FOUND, -32002);
  assert.ok(Object.isFrozen(MCP_ERROR_CODES));
  const jsonRpcCodes = new Set<number>(Object.values(ERROR_CODES));
  for (const code of Object.values(MCP_ERROR_CODES)) {
    assert.equal(jsonRpcCodes.has(code), false);
  }
});

Deno.test("JsonRpcError is an Error with code, message, data and a wire toJSON()", () => {
  const error = new JsonRpcError(-32602, "amount must be an integer", {
    data: { path: "$.a" },
  });
  assert.ok(error instanceof Error);
  assert.equal(error.name, "JsonRpcError");
  assert.equal(error.code, -32602);
  assert.equal(error.message, "amount must be an integer");
  assert.deepEqual(error.data, { path: "$.a" });
  assert.equal(error.requestId, null);
  assert.deepEqual(error.toJSON(), {
    code: -32602,
    message: "amount must be an integer",
    data: { path: "$.a" },
  });
  assert.equal(
    JSON.stringify(error),
    '{"code":-32602,"message":"amount must be an integer","data":{"path":"$.a"}}',
  );
});

Deno.test("JsonRpcError.toJSON() has no data member when there is no data", () => {
  const wire = new JsonRpcError(-32601, "Method not found").toJSON();
  assert.deepEqual(Object.keys(wire), ["code", "message"]);
});

Deno.test("JsonRpcError keeps null data, a cause and a requestId", () => {
  const cause = new RangeError("inner");
  const error = new JsonRpcError(-32603, "Internal error", {
    data: null,
    cause,
    requestId: 9,
  });
  assert.deepEqual(error.toJSON(), {
    code: -32603,
    message: "Internal error",
    data: null,
  });
  assert.equal(error.cause, cause);
  assert.equal(error.requestId, 9);
});

Deno.test("JsonRpcError rejects a non-integer code and a bad requestId with TypeError", () => {
  assert.throws(() => new JsonRpcError(1.5, "x"), {
    name: "TypeError",
    message: "JsonRpcError: code must be an integer, got 1.5",
  });
  assert.throws(
    () => new JsonRpcError(-32600, "x", { requestId: 2.5 }),
    TypeError,
  );
});

// ---------------------------------------------------------------------------------------------
// Builders

Deno.test("makeRequest() builds a request, omitting absent params", () => {
  assert.deepEqual(makeRequest(1, "tools/list"), {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
  });
  assert.equal("params" in makeRequest(1, "tools/list"), false);
  assert.deepEqual(makeRequest("a", "tools/call", { name: "x" }), {
    jsonrpc: "2.0",
    id: "a",
    method: "tools/call",
    params: { name: "x" },
  });
  assert.deepEqual(makeRequest(-3, "sum", [1, 2]).params, [1, 2]);
});

Deno.test("makeRequest() throws TypeError for a float, null, boolean or object id", () => {
  const bad: unknown[] = [
    1.5,
    null,
    true,
    {},
    [],
    NaN,
    Infinity,
    2 ** 53,
    undefined,
  ];
  for (const id of bad) {
    assert.throws(
      () => makeRequest(id as number, "m"),
      TypeError,
      `id ${String(id)}`,
    );
  }
  assert.throws(() => makeRequest(1.5, "m"), {
    message: "makeRequest(): id must be a string or an integer, got 1.5",
  });
});

Deno.test("makeRequest() throws TypeError for a non-string method or scalar params", () => {
  assert.throws(() => makeRequest(1, 42 as unknown as string), {
    name: "TypeError",
    message: "makeRequest(): method must be a string, got 42",
  });
  for (const params of ["x", 3, null, true]) {
    assert.throws(
      () => makeRequest(1, "m", params as unknown as JsonRpcParams),
      TypeError,
    );
  }
});

Deno.test("makeNotification() builds a message with no id", () => {
  const n = makeNotification("notifications/initialized");
  assert.deepEqual(n, { jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(Object.hasOwn(n, "id"), false);
  assert.deepEqual(makeNotification("log", ["a"]).params, ["a"]);
  assert.throws(
    () => makeNotification("log", null as unknown as JsonRpcParams),
    {
      name: "TypeError",
      message: "makeNotification(): params must be an object or an array, got null",
    },
  );
});

Deno.test("makeResult() answers an id; null results are fine, undefined is not", () => {
  assert.deepEqual(makeResult(4, null), {
    jsonrpc: "2.0",
    id: 4,
    result: null,
  });
  assert.deepEqual(makeResult("x", { ok: true }).result, { ok: true });
  assert.throws(() => makeResult(4, undefined), TypeError);
  assert.throws(() => makeResult(null as unknown as number, 1), TypeError);
  assert.throws(() => makeResult(0.1, 1), TypeError);
});

Deno.test("makeError() takes a JsonRpcError or a wire object, and a null id", () => {
  const error = new JsonRpcError(-32601, "Method not found: nope", {
    data: { method: "nope" },
  });
  assert.deepEqual(makeError(5, error), {
    jsonrpc: "2.0",
    id: 5,
    error: {
      code: -32601,
      message: "Method not found: nope",
      data: { method: "nope" },
    },
  });
  assert.deepEqual(makeError(null, { code: -32700, message: "Parse error" }), {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "Parse error" },
  });
});

Deno.test("makeError() throws TypeError for a bad id or a malformed error object", () => {
  assert.throws(() => makeError(1.5, { code: 1, message: "x" }), TypeError);
  assert.throws(() => makeError(1, { code: 1.5, message: "x" }), {
    name: "TypeError",
    message: "makeError(): error.code must be an integer, got 1.5",
  });
  assert.throws(
    () => makeError(1, { code: 1 } as unknown as { code: number; message: string }),
    { message: "makeError(): error.message must be a string, got nothing" },
  );
});

Deno.test("makeResult() and makeError() take a request's id, so a notification cannot be answered", () => {
  const notification = makeNotification("notifications/initialized");
  assert.throws(() => makeResult(notification as unknown as number, null), {
    name: "TypeError",
    message: "makeResult(): id must be a string or an integer, got an object",
  });
  assert.throws(
    () =>
      makeError(notification as unknown as number, {
        code: -32601,
        message: "x",
      }),
    TypeError,
  );
});

// ---------------------------------------------------------------------------------------------
// validateEnvelope: classification

Deno.test("validateEnvelope() classifies requests, notifications and both kinds of response", () => {
  const cases: [unknown, ClassifiedMessage["kind"]][] = [
    [{ jsonrpc: "2.0", id: 1, method: "tools/list" }, "request"],
    [
      { jsonrpc: "2.0", id: "abc", method: "tools/call", params: {} },
      "request",
    ],
    [{ jsonrpc: "2.0", id: 0, method: "m", params: [] }, "request"],
    [{ jsonrpc: "2.0", method: "notifications/initialized" }, "notification"],
    [{ jsonrpc: "2.0", id: 1, result: null }, "response"],
    [
      { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "nope" } },
      "response",
    ],
    [{
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    }, "response"],
  ];
  for (const [value, kind] of cases) {
    assert.equal(validateEnvelope(value).kind, kind, JSON.stringify(value));
  }
});

Deno.test("validateEnvelope() returns only the members JSON-RPC defines", () => {
  const { message } = validateEnvelope({
    jsonrpc: "2.0",
    id: 1,
    method: "m",
    params: { a: 1 },
    extra: "dropped",
  });
  assert.deepEqual(message, {
    jsonrpc: "2.0",
    id: 1,
    method: "m",
    params: { a: 1 },
  });
  const response = validateEnvelope({
    jsonrpc: "2.0",
    id: 2,
    error: { code: 1, message: "m", data: [1], more: true },
  });
  assert.deepEqual(response.message, {
    jsonrpc: "2.0",
    id: 2,
    error: { code: 1, message: "m", data: [1] },
  });
});

Deno.test("validateEnvelope() treats a member whose value is undefined as absent", () => {
  const classified = validateEnvelope({
    jsonrpc: "2.0",
    id: undefined,
    method: "m",
  });
  assert.equal(classified.kind, "notification");
});

// ---------------------------------------------------------------------------------------------
// validateEnvelope: rejections, one rule at a time

Deno.test("validateEnvelope() rejects a batch (array) and says batches are not supported", () => {
  assertRpcError(
    () => validateEnvelope([{ jsonrpc: "2.0", id: 1, method: "m" }]),
    invalid(
      "batches (JSON arrays of messages) are not supported; send each message on its own",
    ),
  );
});

Deno.test("validateEnvelope() rejects a value that is not an object", () => {
  assertRpcError(
    () => validateEnvelope("hi"),
    invalid('a message must be a JSON object, got "hi"'),
  );
  assertRpcError(
    () => validateEnvelope(null),
    invalid("a message must be a JSON object, got null"),
  );
  assertRpcError(
    () => validateEnvelope(42),
    invalid("a message must be a JSON object, got 42"),
  );
});

Deno.test('validateEnvelope() requires jsonrpc to be exactly "2.0"', () => {
  assertRpcError(
    () => validateEnvelope({ id: 1, method: "m" }),
    invalid('jsonrpc is missing; it must be "2.0"', 1),
  );
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "1.0", id: "a", method: "m" }),
    invalid('jsonrpc must be "2.0", got "1.0"', "a"),
  );
  assertRpcError(
    () => validateEnvelope({ jsonrpc: 2, method: "m" }),
    invalid('jsonrpc must be "2.0", got 2'),
  );
});

Deno.test("validateEnvelope() rejects a non-string method", () => {
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", id: 7, method: 5 }),
    invalid("method must be a string, got 5", 7),
  );
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", method: null }),
    invalid("method must be a string, got null"),
  );
});

Deno.test("validateEnvelope() rejects params that are neither an object nor an array", () => {
  for (
    const [params, shown] of [["x", '"x"'], [3, "3"], [null, "null"], [
      false,
      "false",
    ]]
  ) {
    assertRpcError(
      () => validateEnvelope({ jsonrpc: "2.0", id: 1, method: "m", params }),
      invalid(`params must be an object or an array, got ${shown}`, 1),
    );
  }
});

Deno.test("validateEnvelope() rejects a null id in a request", () => {
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", id: null, method: "m" }),
    invalid(
      "id must not be null in a request (omit the id to send a notification)",
    ),
  );
});

Deno.test("validateEnvelope() rejects float, boolean, object and array ids", () => {
  const cases: [unknown, string][] = [
    [1.5, "1.5"],
    [true, "true"],
    [{}, "an object"],
    [[1], "an array"],
  ];
  for (const [id, shown] of cases) {
    assertRpcError(
      () => validateEnvelope({ jsonrpc: "2.0", id, method: "m" }),
      invalid(`id must be a string or an integer, got ${shown}`),
    );
  }
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", id: 2 ** 60, method: "m" }),
    invalid(
      "id must be a string or an integer within ±(2^53 − 1), got 1152921504606847000",
    ),
  );
});

Deno.test("validateEnvelope() rejects a message with both a method and a result or error", () => {
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", id: 1, method: "m", result: 1 }),
    invalid(
      "a message with a method (a request or notification) cannot also have a result",
      1,
    ),
  );
  assertRpcError(
    () =>
      validateEnvelope({
        jsonrpc: "2.0",
        method: "m",
        error: { code: 1, message: "x" },
      }),
    invalid(
      "a message with a method (a request or notification) cannot also have an error",
    ),
  );
});

Deno.test("validateEnvelope() rejects a response with both result and error", () => {
  assertRpcError(
    () =>
      validateEnvelope({
        jsonrpc: "2.0",
        id: 3,
        result: 1,
        error: { code: 1, message: "" },
      }),
    invalid(
      "a response must have exactly one of result and error, got both",
      3,
    ),
  );
});

Deno.test("validateEnvelope() rejects a message with neither method, result nor error", () => {
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", id: 3 }),
    invalid(
      "a message needs a method (a request or notification) or exactly one of result and " +
        "error (a response)",
      3,
    ),
  );
});

Deno.test("validateEnvelope() rejects a response without an id, or a success with a null id", () => {
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", result: 1 }),
    invalid(
      "a response must have an id (null only in an error response to an unreadable request)",
    ),
  );
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", id: null, result: 1 }),
    invalid("id must not be null in a successful response"),
  );
  assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", id: 0.5, result: 1 }),
    invalid("id must be a string or an integer, got 0.5"),
  );
});

Deno.test("validateEnvelope() rejects a malformed error object in a response", () => {
  const cases: [unknown, string][] = [
    ["oops", 'error must be an object with code and message, got "oops"'],
    [null, "error must be an object with code and message, got null"],
    [[], "error must be an object with code and message, got an array"],
    [{ message: "x" }, "error.code must be an integer, got nothing"],
    [
      { code: "-32600", message: "x" },
      'error.code must be an integer, got "-32600"',
    ],
    [
      { code: -32600.5, message: "x" },
      "error.code must be an integer, got -32600.5",
    ],
    [{ code: -32600 }, "error.message must be a string, got nothing"],
    [{ code: -32600, message: 1 }, "error.message must be a string, got 1"],
  ];
  for (const [error, problem] of cases) {
    assertRpcError(
      () => validateEnvelope({ jsonrpc: "2.0", id: 8, error }),
      invalid(problem, 8),
    );
  }
});

Deno.test("validateEnvelope() exposes a readable id so the server can answer it", () => {
  const error = assertRpcError(
    () => validateEnvelope({ jsonrpc: "2.0", id: "req-9", method: "m", params: 1 }),
    invalid("params must be an object or an array, got 1", "req-9"),
  );
  assert.deepEqual(makeError(error.requestId, error), {
    jsonrpc: "2.0",
    id: "req-9",
    error: {
      code: -32600,
      message: "Invalid Request: params must be an object or an array, got 1",
    },
  });
});

// ---------------------------------------------------------------------------------------------
// parseMessage

Deno.test("parseMessage() reports text that is not JSON as a -32700 parse error", () => {
  for (const text of ["", "{", "{not json", "[1,]", "undefined"]) {
    let caught: unknown;
    try {
      parseMessage(text);
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof JsonRpcError, text);
    assert.equal(caught.code, ERROR_CODES.PARSE_ERROR);
    assert.match(caught.message, /^Parse error: /);
    assert.equal(caught.requestId, null);
    assert.ok(caught.cause instanceof SyntaxError);
  }
});

Deno.test("parseMessage() then applies validateEnvelope's rules (-32600)", () => {
  assertRpcError(
    () => parseMessage('{"jsonrpc":"2.0","id":1.5,"method":"m"}'),
    invalid("id must be a string or an integer, got 1.5"),
  );
  assertRpcError(
    () => parseMessage("[]"),
    invalid(
      "batches (JSON arrays of messages) are not supported; send each message on its own",
    ),
  );
  assert.deepEqual(
    parseMessage('{"jsonrpc":"2.0","id":"x","result":{"tools":[]}}'),
    {
      kind: "response",
      message: { jsonrpc: "2.0", id: "x", result: { tools: [] } },
    },
  );
});

Deno.test("parseMessage() throws TypeError when given something other than text", () => {
  assert.throws(() => parseMessage({} as unknown as string), TypeError);
});

// ---------------------------------------------------------------------------------------------
// Properties

const idArb: fc.Arbitrary<string | number> = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
);
const paramsArb: fc.Arbitrary<JsonRpcParams | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.array(fc.jsonValue(), { maxLength: 4 }),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
);
const errorArb: fc.Arbitrary<JsonRpcError> = fc.record({
  code: fc.integer(),
  message: fc.string(),
  data: fc.option(fc.jsonValue(), { nil: undefined }),
}).map(({ code, message, data }) => new JsonRpcError(code, message, { data }));

const builtArb: fc.Arbitrary<[ClassifiedMessage["kind"], JsonRpcMessage]> = fc
  .oneof(
    fc.tuple(idArb, fc.string(), paramsArb).map(([id, method, params]) =>
      ["request", makeRequest(id, method, params)] as [
        ClassifiedMessage["kind"],
        JsonRpcMessage,
      ]
    ),
    fc.tuple(fc.string(), paramsArb).map(([method, params]) =>
      ["notification", makeNotification(method, params)] as [
        ClassifiedMessage["kind"],
        JsonRpcMessage,
      ]
    ),
    fc.tuple(idArb, fc.jsonValue()).map(([id, result]) =>
      ["response", makeResult(id, result)] as [
        ClassifiedMessage["kind"],
        JsonRpcMessage,
      ]
    ),
    fc.tuple(fc.option(idArb, { nil: null }), errorArb).map(([id, error]) =>
      ["response", makeError(id, error)] as [
        ClassifiedMessage["kind"],
        JsonRpcMessage,
      ]
    ),
  );

Deno.test("property: make* → JSON.stringify → parseMessage round-trips the text and kind", () => {
  fc.assert(
    fc.property(builtArb, ([kind, message]) => {
      const text = JSON.stringify(message);
      const parsed = parseMessage(text);
      assert.equal(parsed.kind, kind);
      assert.equal(JSON.stringify(parsed.message), text);
      assert.deepEqual(parsed.message, JSON.parse(text));
    }),
  );
});

Deno.test("property: validateEnvelope() is idempotent on what it accepts", () => {
  fc.assert(
    fc.property(builtArb, ([, message]) => {
      const once = validateEnvelope(JSON.parse(JSON.stringify(message)));
      assert.deepEqual(validateEnvelope(once.message), once);
    }),
  );
});

/** Usually `good`; sometimes absent, sometimes any JSON value: to reach every rule in turn. */
function mostly<T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: good, weight: 8 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: fc.jsonValue(), weight: 1 },
  );
}

const goodErrorArb: fc.Arbitrary<Record<string, unknown>> = fc.record({
  code: mostly(fc.integer()),
  message: mostly(fc.string()),
});

/** JSON objects shaped like each kind of message, each member sometimes missing or wrong. */
const shapedArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({
    jsonrpc: mostly(fc.constant("2.0")),
    id: fc.oneof(mostly(idArb), fc.double(), fc.constant(null)),
    method: mostly(fc.string()),
    params: mostly(paramsArb),
  }),
  fc.record({
    jsonrpc: mostly(fc.constant("2.0")),
    method: mostly(fc.string()),
  }),
  fc.record({
    jsonrpc: mostly(fc.constant("2.0")),
    id: fc.oneof(mostly(idArb), fc.double(), fc.constant(null)),
    result: mostly(fc.jsonValue()),
  }),
  fc.record({
    jsonrpc: mostly(fc.constant("2.0")),
    id: fc.oneof(mostly(idArb), fc.constant(null)),
    error: mostly(goodErrorArb),
  }),
);

/** Now and then, members that belong to another kind of message. */
const strayArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { arbitrary: fc.constant({}), weight: 4 },
  {
    arbitrary: fc.record({
      method: fc.string(),
      result: fc.jsonValue(),
      error: goodErrorArb,
    }, {
      requiredKeys: [],
    }),
    weight: 1,
  },
);
const nearMessageArb: fc.Arbitrary<unknown> = fc.tuple(shapedArb, strayArb)
  .map(([message, stray]) => JSON.parse(JSON.stringify({ ...message, ...stray })));

Deno.test("property: arbitrary JSON makes validateEnvelope() throw only JsonRpcError -32600", () => {
  fc.assert(
    fc.property(fc.oneof(fc.jsonValue(), nearMessageArb), (value) => {
      try {
        const { kind, message } = validateEnvelope(value);
        const hasMethod = "method" in message;
        const hasId = "id" in message;
        assert.equal(
          kind,
          hasMethod ? (hasId ? "request" : "notification") : "response",
        );
      } catch (e) {
        assert.ok(e instanceof JsonRpcError, `threw ${e}`);
        assert.equal(e.code, ERROR_CODES.INVALID_REQUEST);
        assert.match(e.message, /^Invalid Request: /);
        // The id it exposes is the message's own (readable) id, or null.
        const id = (value as { id?: unknown } | null)?.id;
        if (e.requestId !== null) assert.equal(e.requestId, id);
      }
    }),
    { numRuns: 500 },
  );
});

Deno.test("property: arbitrary text makes parseMessage() throw only JsonRpcError", () => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
      try {
        parseMessage(text);
      } catch (e) {
        assert.ok(e instanceof JsonRpcError, `threw ${e}`);
        assert.ok(e.code === -32700 || e.code === -32600);
      }
    }),
    { numRuns: 500 },
  );
});

Deno.test("property: a fractional id is always rejected, by builders and by the reader", () => {
  const fractional = fc.double({ noNaN: true, noDefaultInfinity: true }).filter(
    (x) => !Number.isInteger(x),
  );
  fc.assert(
    fc.property(fractional, fc.string(), (id, method) => {
      assert.throws(() => makeRequest(id, method), TypeError);
      assert.throws(() => makeResult(id, null), TypeError);
      assertRpcError(
        () => validateEnvelope({ jsonrpc: "2.0", id, method }),
        invalid(`id must be a string or an integer, got ${id}`),
      );
    }),
  );
});
