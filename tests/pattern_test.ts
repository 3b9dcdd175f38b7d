import assert from "node:assert/strict";
import fc from "fast-check";
import { compileLinear, compilePattern } from "../lib/schema/safe_pattern.ts";
import { ALPHABET, arbitraryPattern, render } from "./_regex_model.ts";

Deno.test("compilePattern() runs provably unambiguous patterns natively and the rest in linear time", () => {
  const engine = (p: string) => {
    const c = compilePattern(p);
    return c.ok ? c.pattern.engine : c.reason;
  };
  assert.equal(engine("^[A-Z]{3}$"), "native");
  assert.equal(engine("^PMT-[0-9]{6}$"), "native");
  assert.equal(engine("^[0-9]+$"), "native");
  assert.equal(engine("^(ab|a){2}$"), "native");
  assert.equal(engine("^a{1,1000}$"), "linear"); // beyond the analysis' 512 positions
  assert.equal(engine("^(a+)+$"), "linear");
  assert.equal(engine("^\\S+@\\S+\\.\\S+$"), "linear");
  assert.equal(engine("[a-z]+$"), "linear"); // unanchored: each start position runs to the end
  assert.equal(engine("[a-z]+"), "native"); // …unless the loop ends the pattern
  assert.match(engine("(?<=a)b"), /lookbehind/);
});

// The linear engine must agree with ECMA-262 RegExp on the patterns tool schemas use.
const PATTERNS = [
  "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$",
  "^[0-9]+(\\.[0-9]{1,2})?$",
  "^\\s*\\S+\\s*$",
  "^.+@.+$",
  "^(a|ab)*c$",
  "\\d{3}-\\w+",
  "^\\p{L}+$",
  "^[^\\n]*$",
  "colou?r",
  "^\\u00e9+$",
  "^[a-c]*$|^x",
  "^(?<code>[A-Z]{3})$",
];

Deno.test("property: the linear engine agrees with RegExp on tool-schema patterns", () => {
  const alphabet = fc.constantFrom(
    "a",
    "b",
    "c",
    "x",
    "A",
    "Z",
    "0",
    "7",
    ".",
    "@",
    "-",
    " ",
    "\n",
    "\r",
    "\t",
    "\u00a0",
    "\u2028",
    "é",
    "😀",
    "_",
  );
  for (const p of PATTERNS) {
    const c = compileLinear(p);
    assert.ok(c.ok, p);
    const native = new RegExp(p, "u");
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 24 }).map((a) => a.join("")),
        (s) => c.pattern.test(s) === native.test(s),
      ),
      { numRuns: 300 },
    );
  }
});

Deno.test("compileLinear() keeps ECMA-262 meanings on re2js", () => {
  // Unbounded patterns run on re2js: check a few exact cases across the ECMA-262 differences.
  const cases: [string, string, boolean][] = [
    ["^.$", "\n", false],
    ["^.$", "\u2028", false],
    ["^.+$", "😀", true],
    ["^\\s+$", "\u00a0\u2028\ufeff", true],
    ["^\\S+$", "a\u00a0", false],
    ["^[^]+$", "a\nb", true],
    ["^[]*$", "", true],
    ["^\\p{Lu}+$", "ÉCOLE", true],
  ];
  for (const [p, s, want] of cases) {
    const c = compileLinear(p);
    assert.ok(c.ok, p);
    assert.equal(c.pattern.engine, "linear");
    assert.equal(c.pattern.test(s), want, `${p} on ${JSON.stringify(s)}`);
  }
});

Deno.test("property: the native engine and re2js agree on generated patterns", () => {
  // Routing a pattern to the native engine must not change a validation result.
  fc.assert(
    fc.property(
      arbitraryPattern(),
      fc.array(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 16 }), {
        maxLength: 30,
      }),
      (r, strings) => {
        const source = render(r);
        const native = new RegExp(source, "u");
        const linear = compileLinear(source);
        assert.ok(linear.ok, source);
        for (const s of strings.map((a) => a.join(""))) {
          assert.equal(
            linear.pattern.test(s),
            native.test(s),
            `${source} on ${JSON.stringify(s)}`,
          );
        }
      },
    ),
    { numRuns: 500 },
  );
});
