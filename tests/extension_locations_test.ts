import assert from "node:assert/strict";
import fc from "fast-check";
import {
  findNode,
  isOnVersion,
  LineIndex,
  locateSegments,
  locateSpecProblem,
  locateTarget,
  parseToolFile,
  type Span,
} from "../lib/report/locations.ts";
import type { PathSegment } from "../lib/schema/types.ts";

const draft = `{
  "name": "payments.lookup",
  "version": "2.1.0",
  "description": "Looks up a payment.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "reference": { "type": "string", "pattern": "^PMT-[0-9]{6}$" },
      "a b": { "type": "string" },
      "legs": { "type": "array", "items": [{ "type": "string" }, { "type": "number" }] }
    },
    "required": ["reference"]
  },
  "sideEffect": "read"
}
`;
const tree = parseToolFile(draft);
const text = (span: Span): string => draft.slice(span.offset, span.offset + span.length);

Deno.test("locateTarget() shows the version and the description by their values", () => {
  assert.deepEqual(text(locateTarget(tree, { field: "version" })), '"2.1.0"');
  assert.deepEqual(
    text(locateTarget(tree, { field: "description" })),
    '"Looks up a payment."',
  );
  assert.equal(locateTarget(tree, { field: "version" }).exact, true);
});

Deno.test("locateTarget() shows a schema object by its property key and a keyword's scalar value", () => {
  const at = (path: string) => locateTarget(tree, { field: "inputSchema", path });
  assert.equal(text(at("$.properties.reference")), '"reference"');
  assert.equal(text(at("$.properties.reference.pattern")), '"^PMT-[0-9]{6}$"');
  assert.equal(text(at('$.properties["a b"]')), '"a b"');
  assert.equal(text(at("$.required")), '"required"');
  assert.equal(
    text(at("$")),
    '"inputSchema"',
    "the root schema is shown by its field",
  );
});

Deno.test("locateTarget() shows an array item without a key by its opening bracket", () => {
  const span = locateTarget(tree, {
    field: "inputSchema",
    path: "$.properties.legs.items[1]",
  });
  assert.equal(text(span), "{");
  assert.equal(span.exact, true);
  const typeOfItem = locateTarget(tree, {
    field: "inputSchema",
    path: "$.properties.legs.items[1].type",
  });
  assert.equal(text(typeOfItem), '"number"');
});

Deno.test("locateTarget() shows a removed node at its nearest enclosing node, not exactly", () => {
  const span = locateTarget(tree, {
    field: "inputSchema",
    path: "$.properties.currency",
  });
  assert.equal(text(span), '"properties"');
  assert.equal(span.exact, false);
  const deep = locateTarget(tree, {
    field: "inputSchema",
    path: "$.properties.legs.items[7].x",
  });
  assert.equal(text(deep), '"items"');
  assert.equal(deep.exact, false);
});

Deno.test("locateTarget() shows a path that is not a $ path at inputSchema", () => {
  const span = locateTarget(tree, {
    field: "inputSchema",
    path: "properties/currency",
  });
  assert.equal(text(span), '"inputSchema"');
});

Deno.test("locateSpecProblem() puts a problem at the field it names, or at the opening brace", () => {
  assert.equal(
    text(
      locateSpecProblem(tree, 'sideEffect must be one of read, write, got "x"'),
    ),
    '"read"',
  );
  assert.equal(
    text(locateSpecProblem(tree, "version: invalid version")),
    '"2.1.0"',
  );
  const missing = locateSpecProblem(tree, "owner is required");
  assert.deepEqual([missing.offset, missing.length, missing.exact], [
    0,
    1,
    false,
  ]);
  const extra = parseToolFile('{"name": "x", "extra": {"a": 1}}');
  const span = locateSpecProblem(extra, "unknown field extra");
  assert.equal(
    '{"name": "x", "extra": {"a": 1}}'.slice(
      span.offset,
      span.offset + span.length,
    ),
    '"extra"',
  );
});

Deno.test("isOnVersion() is true on the version key and value only", () => {
  const at = (needle: string, shift = 1) => isOnVersion(tree, draft.indexOf(needle) + shift);
  assert.equal(at('"version"'), true);
  assert.equal(at('"2.1.0"'), true);
  assert.equal(at('"payments.lookup"'), false);
  assert.equal(at('"reference"'), false);
});

Deno.test("parseToolFile() reports syntax errors and keeps what it could read", () => {
  const broken = parseToolFile('{"version": "1.0.0",, "name": }');
  assert.ok(broken.errors.length > 0);
  assert.ok(broken.root);
  assert.equal(parseToolFile("").root, undefined);
  assert.deepEqual(locateTarget(parseToolFile(""), { field: "version" }), {
    offset: 0,
    length: 0,
    exact: false,
  });
});

Deno.test("LineIndex maps offsets to LSP positions and back, over \\n, \\r\\n and \\r", () => {
  const t = "ab\ncd\r\nef\rg€h";
  const lines = new LineIndex(t);
  const expected: [number, number, number][] = [
    [0, 0, 0],
    [2, 0, 2],
    [3, 1, 0],
    [5, 1, 2],
    [7, 2, 0],
    [10, 3, 0],
    [12, 3, 2],
  ];
  for (const [offset, line, character] of expected) {
    assert.deepEqual(
      lines.position(offset),
      { line, character },
      `offset ${offset}`,
    );
    assert.equal(lines.offset({ line, character }), offset);
  }
});

/** Every path to a node of a JSON value, with the node. */
function* nodes(
  value: unknown,
  path: PathSegment[] = [],
): Generator<[PathSegment[], unknown]> {
  yield [path, value];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* nodes(value[i], [...path, i]);
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) yield* nodes(v, [...path, k]);
  }
}

Deno.test("locateSegments() finds every node exactly, whatever the layout: a scalar as its JSON, a keyed container by its key", () => {
  const json = fc.jsonValue({ maxDepth: 4 }).filter((v) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
  );
  fc.assert(
    fc.property(json, fc.constantFrom(0, 1, 2, "\t"), (value, indent) => {
      const source = JSON.stringify(value, null, indent);
      const parsed = parseToolFile(source);
      assert.equal(parsed.errors.length, 0);
      for (const [path, node] of nodes(value)) {
        if (path.length === 0) continue;
        const span = locateSegments(parsed, path);
        assert.equal(span.exact, true, JSON.stringify(path));
        const shown = source.slice(span.offset, span.offset + span.length);
        const last = path[path.length - 1];
        if (typeof node === "object" && node !== null) {
          if (typeof last === "string") assert.equal(JSON.parse(shown), last);
          else assert.equal(shown, Array.isArray(node) ? "[" : "{");
        } else {
          // Compared as JSON text: -0 prints as 0 (seed 2128839770 found {"": -0}).
          assert.equal(JSON.stringify(JSON.parse(shown)), JSON.stringify(node));
        }
        assert.equal(findNode(parsed.root!, path).exact, true);
      }
    }),
    { numRuns: 200 },
  );
});
