import assert from "node:assert/strict";
import fc from "fast-check";
import {
  bumpFor,
  compareVersions,
  isValidConstraint,
  type ReleaseType,
  satisfies,
  Version,
  type VersionParts,
} from "../lib/compat/mod.ts";

// ---------------------------------------------------------------------------------------------
// Version

Deno.test("Version.parse() reads major, minor, patch, pre-release and build", () => {
  const v = Version.parse("1.22.333-rc.1.x-y+build.007");
  assert.equal(v.major, 1);
  assert.equal(v.minor, 22);
  assert.equal(v.patch, 333);
  assert.deepEqual(v.prerelease, ["rc", "1", "x-y"]);
  assert.deepEqual(v.build, ["build", "007"]);
  assert.deepEqual(Version.parse("0.0.0").prerelease, []);
  assert.deepEqual(Version.parse("0.0.0").build, []);
});

Deno.test("Version.parse() accepts the semver.org examples", () => {
  for (
    const text of [
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-0.3.7",
      "1.0.0-x.7.z.92",
      "1.0.0-x-y-z.--",
      "1.0.0-alpha+001",
      "1.0.0+20130313144700",
      "1.0.0-beta+exp.sha.5114f85",
      "1.0.0+21AF26D3----117B344092BD",
      "1.0.0-0A.is.legal",
    ]
  ) {
    assert.equal(Version.parse(text).toString(), text);
  }
});

Deno.test("Version.parse() rejects loose forms with a TypeError naming the input and the fault", () => {
  const cases: [string, string][] = [
    ["v1.2.3", 'remove the leading "v"'],
    ["=1.2.3", 'remove the leading "="'],
    [" 1.2.3", "remove the surrounding whitespace"],
    ["1.2.3\n", "remove the surrounding whitespace"],
    ["1.2", "expected three numbers MAJOR.MINOR.PATCH"],
    ["1.2.3.4", "expected three numbers MAJOR.MINOR.PATCH"],
    ["1.2.x", "expected three numbers MAJOR.MINOR.PATCH"],
    ["", "expected three numbers MAJOR.MINOR.PATCH"],
    ["01.2.3", "01 has a leading zero"],
    ["1.2.03", "03 has a leading zero"],
    ["1.2.3-01", "malformed -prerelease or +build part"],
    ["1.2.3-", "malformed -prerelease or +build part"],
    ["1.2.3+", "malformed -prerelease or +build part"],
    ["1.2.3-a..b", "malformed -prerelease or +build part"],
    ["1.2.3+a_b", "malformed -prerelease or +build part"],
    ["9007199254740992.0.0", "9007199254740992 is larger than 2^53 - 1"],
    [`1.2.3-${"a".repeat(300)}`, "longer than 256 characters"],
  ];
  for (const [text, fault] of cases) {
    assert.throws(() => Version.parse(text), (e: unknown) => {
      assert.ok(e instanceof TypeError, text);
      assert.ok(
        e.message.startsWith(`Invalid version ${JSON.stringify(text)}: `),
        e.message,
      );
      assert.ok(e.message.includes(fault), `${e.message} should say ${fault}`);
      return true;
    });
  }
  assert.throws(() => Version.parse(123 as unknown as string), {
    name: "TypeError",
    message: "Invalid version 123: expected a string",
  });
});

Deno.test("new Version() checks its parts and freezes its identifier lists", () => {
  const v = new Version({
    major: 1,
    minor: 2,
    patch: 3,
    prerelease: ["rc", "1"],
  });
  assert.equal(v.toString(), "1.2.3-rc.1");
  assert.ok(Object.isFrozen(v.prerelease));
  assert.throws(() => new Version({ major: -1, minor: 0, patch: 0 }), {
    name: "TypeError",
    message: "Invalid version: major must be a non-negative integer, got -1",
  });
  assert.throws(
    () => new Version({ major: 1, minor: 0.5, patch: 0 }),
    TypeError,
  );
  assert.throws(
    () => new Version({ major: 1, minor: 0, patch: 0, prerelease: ["01"] }),
    {
      message: 'Invalid version: bad pre-release identifier "01"',
    },
  );
  assert.throws(
    () => new Version({ major: 1, minor: 0, patch: 0, build: [""] }),
    TypeError,
  );
});

Deno.test("Version's toString() and toJSON() give the text it was parsed from", () => {
  const v = Version.parse("3.0.0-beta.2+sha.1");
  assert.equal(`${v}`, "3.0.0-beta.2+sha.1");
  assert.equal(JSON.stringify({ v }), '{"v":"3.0.0-beta.2+sha.1"}');
});

// ---------------------------------------------------------------------------------------------
// compareVersions

Deno.test("compareVersions() follows semver.org's precedence example", () => {
  const ordered = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.1",
    "1.1.0",
    "1.9.0",
    "1.10.0",
    "2.0.0",
  ];
  for (let i = 0; i < ordered.length - 1; i++) {
    assert.equal(
      compareVersions(ordered[i], ordered[i + 1]),
      -1,
      `${ordered[i]} < next`,
    );
    assert.equal(compareVersions(ordered[i + 1], ordered[i]), 1);
  }
});

Deno.test("compareVersions() ignores build metadata and accepts Version objects", () => {
  assert.equal(compareVersions("1.0.0+a", "1.0.0+b"), 0);
  assert.equal(compareVersions(Version.parse("1.0.0"), "1.0.0+x"), 0);
});

Deno.test("compareVersions() rejects a loose version string", () => {
  assert.throws(
    () => compareVersions("v1.0.0", "1.0.0"),
    /Invalid version "v1.0.0"/,
  );
});

// ---------------------------------------------------------------------------------------------
// satisfies and isValidConstraint

Deno.test("satisfies() with an exact constraint", () => {
  assert.equal(satisfies("1.2.3", "1.2.3"), true);
  assert.equal(satisfies("1.2.3+build", "=1.2.3"), true);
  assert.equal(satisfies("1.2.4", "1.2.3"), false);
});

Deno.test("satisfies() with ^ follows npm, including ^0.x and ^0.0.x", () => {
  const cases: [string, string, boolean][] = [
    ["1.2.3", "^1.2.3", true],
    ["1.9.9", "^1.2.3", true],
    ["2.0.0", "^1.2.3", false],
    ["1.2.2", "^1.2.3", false],
    ["0.2.3", "^0.2.3", true],
    ["0.2.9", "^0.2.3", true],
    ["0.3.0", "^0.2.3", false],
    ["0.0.3", "^0.0.3", true],
    ["0.0.4", "^0.0.3", false],
    ["1.0.0", "^0.9.0", false],
  ];
  for (const [version, constraint, expected] of cases) {
    assert.equal(
      satisfies(version, constraint),
      expected,
      `${version} ${constraint}`,
    );
  }
});

Deno.test("satisfies() with ~ allows patch-level changes only", () => {
  assert.equal(satisfies("1.2.9", "~1.2.3"), true);
  assert.equal(satisfies("1.3.0", "~1.2.3"), false);
  assert.equal(satisfies("1.2.2", "~1.2.3"), false);
  assert.equal(satisfies("0.2.5", "~0.2.3"), true);
});

Deno.test("satisfies() with comparator sets, hyphen ranges, || and *", () => {
  const cases: [string, string, boolean][] = [
    ["1.5.0", ">=1.2.0 <2.0.0", true],
    ["2.0.0", ">=1.2.0 <2.0.0", false],
    ["1.1.9", ">=1.2.0 <2.0.0", false],
    ["1.5.0", ">= 1.2.0 < 2.0.0", true],
    ["1.2.3", "1.2.3 - 2.3.4", true],
    ["2.3.4", "1.2.3 - 2.3.4", true],
    ["2.3.5", "1.2.3 - 2.3.4", false],
    ["3.1.0", "^1.0.0 || ^3.0.0", true],
    ["2.1.0", "^1.0.0 || ^3.0.0", false],
    ["0.0.1", "*", true],
    ["99.0.0", "*", true],
    ["1.7.0", "1.x", true],
    ["1.2.7", "1.2", true],
    ["1.3.0", "1.2.*", false],
  ];
  for (const [version, constraint, expected] of cases) {
    assert.equal(
      satisfies(version, constraint),
      expected,
      `${version} ${constraint}`,
    );
  }
});

Deno.test("satisfies() lets a pre-release match only a pre-release comparator of its release", () => {
  assert.equal(satisfies("1.3.0-rc.1", "^1.2.0"), false);
  assert.equal(satisfies("1.3.0-rc.2", ">=1.3.0-rc.1 <2.0.0"), true);
  assert.equal(satisfies("1.3.0-rc.1", "*"), false);
});

Deno.test("satisfies() throws TypeError quoting an invalid constraint", () => {
  const cases: [string, string][] = [
    ["latest", '"latest" is not a comparator'],
    ["", "it is empty"],
    ["  ", "it is empty"],
    ["^1.2.3 ||", "an alternative around || is empty"],
    ["|| 1.0.0", "an alternative around || is empty"],
    ["v1.2.3", '"v1.2.3" is not a comparator'],
    [">=01.2.0", '">=01.2.0" is not a comparator'],
    ["1.2.3 foo", '"foo" is not a comparator'],
    ["~>1.2", '"~>1.2" is not a comparator'],
    ["1.2.3 -", '"-" is not a comparator'],
  ];
  for (const [constraint, fault] of cases) {
    assert.throws(() => satisfies("1.2.3", constraint), (e: unknown) => {
      assert.ok(e instanceof TypeError);
      assert.ok(
        e.message.startsWith(
          `Invalid version constraint ${JSON.stringify(constraint)}: `,
        ),
        e.message,
      );
      assert.ok(e.message.includes(fault), `${e.message} should say ${fault}`);
      return true;
    });
  }
});

Deno.test("satisfies() throws TypeError for a loose version", () => {
  assert.throws(() => satisfies("1.2", "^1.0.0"), /Invalid version "1.2"/);
});

Deno.test("isValidConstraint() accepts what satisfies() accepts, and nothing else", () => {
  for (
    const text of [
      "1.2.3",
      "=1.2.3",
      "^1.2.3",
      "~1.2.3",
      ">=1.2.0 <2.0.0",
      "1.2.3 - 2.3.4",
      "*",
    ]
  ) {
    assert.equal(isValidConstraint(text), true, text);
  }
  for (
    const text of [
      "^1.0.0 || ~2.1.0",
      "1.x",
      "1.2.x",
      "x",
      ">1.0.0-rc.1",
      "<=2",
    ]
  ) {
    assert.equal(isValidConstraint(text), true, text);
  }
  for (
    const text of [
      "",
      "latest",
      "^",
      "1.2.3 ||",
      "v1",
      "1.2.3.4",
      ">>1.0.0",
      "^01.0.0",
    ]
  ) {
    assert.equal(isValidConstraint(text), false, text);
  }
  assert.equal(isValidConstraint(42 as unknown as string), false);
});

// ---------------------------------------------------------------------------------------------
// bumpFor

Deno.test("bumpFor() gives the next major, minor or patch version", () => {
  assert.equal(bumpFor("1.4.2", "major"), "2.0.0");
  assert.equal(bumpFor("1.4.2", "minor"), "1.5.0");
  assert.equal(bumpFor("1.4.2", "patch"), "1.4.3");
  assert.equal(bumpFor("0.3.1", "major"), "1.0.0");
  assert.equal(bumpFor(Version.parse("1.4.2+build.9"), "patch"), "1.4.3");
});

Deno.test("bumpFor() releases a pre-release rather than skipping it", () => {
  assert.equal(bumpFor("2.0.0-rc.1", "major"), "2.0.0");
  assert.equal(bumpFor("2.1.0-rc.1", "major"), "3.0.0");
  assert.equal(bumpFor("1.3.0-beta", "minor"), "1.3.0");
  assert.equal(bumpFor("1.3.4-beta", "patch"), "1.3.4");
});

Deno.test("bumpFor() throws TypeError for an unknown release kind or a loose version", () => {
  assert.throws(() => bumpFor("1.0.0", "breaking" as ReleaseType), {
    name: "TypeError",
    message: 'bumpFor(): release must be "major", "minor" or "patch", got "breaking"',
  });
  assert.throws(() => bumpFor("1.0", "patch"), TypeError);
});

// ---------------------------------------------------------------------------------------------
// Properties

const numberArb: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 1_000_000 }), weight: 1 },
  { arbitrary: fc.constant(Number.MAX_SAFE_INTEGER), weight: 1 },
);
const alnum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-"
  .split("");
const preIdArb: fc.Arbitrary<string> = fc.oneof(
  fc.nat({ max: 20 }).map(String),
  fc.constantFrom("alpha", "beta", "rc", "x-y"),
  fc.tuple(
    fc.string({ unit: fc.constantFrom(...alnum), maxLength: 5 }),
    fc.constantFrom("a", "-"),
  )
    .map(([s, letter]) => s + letter),
);
const buildIdArb: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom(...alnum),
  minLength: 1,
  maxLength: 6,
});
const partsArb: fc.Arbitrary<VersionParts> = fc.record({
  major: numberArb,
  minor: numberArb,
  patch: numberArb,
  prerelease: fc.array(preIdArb, { maxLength: 3 }),
  build: fc.array(buildIdArb, { maxLength: 2 }),
});

Deno.test("property: Version formats and parses back to the same version", () => {
  fc.assert(
    fc.property(partsArb, (parts) => {
      const text = new Version(parts).toString();
      const v = Version.parse(text);
      assert.deepEqual(
        {
          major: v.major,
          minor: v.minor,
          patch: v.patch,
          prerelease: v.prerelease,
          build: v.build,
        },
        { ...parts },
      );
      assert.equal(v.toString(), text);
    }),
  );
});

Deno.test("property: Version.parse() of any string gives back that string or a TypeError", () => {
  const textArb = fc.oneof(
    fc.string(),
    fc.string({ unit: fc.constantFrom(..."0123.-+avx ".split("")) }),
  );
  fc.assert(
    fc.property(textArb, (text) => {
      try {
        assert.equal(Version.parse(text).toString(), text);
      } catch (e) {
        assert.ok(e instanceof TypeError, `threw ${e}`);
      }
    }),
    { numRuns: 500 },
  );
});

/** The reference: what ^, ~ and exact mean for release triples, written out by hand. */
function modelSatisfies(
  v: number[],
  op: "^" | "~" | "",
  base: number[],
): boolean {
  const [major, minor, patch] = v;
  const [bMajor, bMinor, bPatch] = base;
  const atLeast = major !== bMajor
    ? major > bMajor
    : minor !== bMinor
    ? minor > bMinor
    : patch >= bPatch;
  switch (op) {
    case "":
      return major === bMajor && minor === bMinor && patch === bPatch;
    case "~":
      return atLeast && major === bMajor && minor === bMinor;
    case "^":
      if (bMajor > 0) return atLeast && major === bMajor;
      if (bMinor > 0) return atLeast && major === 0 && minor === bMinor;
      return major === 0 && minor === 0 && patch === bPatch;
  }
}

Deno.test("property: satisfies() agrees with a hand-written model for ^, ~ and exact", () => {
  const small = fc.integer({ min: 0, max: 3 });
  const triple = fc.tuple(small, small, small);
  fc.assert(
    fc.property(
      triple,
      fc.constantFrom("^", "~", "") as fc.Arbitrary<"^" | "~" | "">,
      triple,
      (
        v,
        op,
        base,
      ) => {
        const constraint = `${op}${base.join(".")}`;
        assert.equal(
          satisfies(v.join("."), constraint),
          modelSatisfies(v, op, base),
          `${v.join(".")} vs ${constraint}`,
        );
      },
    ),
    { numRuns: 1000 },
  );
});

/** Versions drawn from a small pool, so that ties and near-ties are common. */
const poolVersionArb: fc.Arbitrary<Version> = fc.record({
  major: fc.integer({ min: 0, max: 2 }),
  minor: fc.integer({ min: 0, max: 2 }),
  patch: fc.integer({ min: 0, max: 2 }),
  prerelease: fc.oneof(
    fc.constant([]),
    fc.array(fc.constantFrom("alpha", "beta", "1", "2", "11"), {
      minLength: 1,
      maxLength: 2,
    }),
  ),
  build: fc.oneof(fc.constant([]), fc.constant(["b1"]), fc.constant(["b2"])),
}).map((parts) => new Version(parts));

Deno.test("property: compareVersions() is a total order (reflexive, antisymmetric, transitive)", () => {
  fc.assert(
    fc.property(poolVersionArb, poolVersionArb, poolVersionArb, (a, b, c) => {
      assert.equal(compareVersions(a, a), 0);
      const ab = compareVersions(a, b);
      assert.ok(ab === -1 || ab === 0 || ab === 1);
      assert.equal(compareVersions(b, a), -ab || 0);
      if (ab <= 0 && compareVersions(b, c) <= 0) {
        assert.ok(compareVersions(a, c) <= 0);
      }
      if (ab === 0) assert.equal(compareVersions(a, c), compareVersions(b, c));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("property: versions equal but for build metadata compare equal", () => {
  fc.assert(
    fc.property(
      partsArb,
      fc.array(buildIdArb, { maxLength: 2 }),
      (parts, build) => {
        assert.equal(
          compareVersions(new Version(parts), new Version({ ...parts, build })),
          0,
        );
      },
    ),
  );
});

Deno.test("property: bumpFor() moves forward and resets the lower parts", () => {
  const releaseArb = fc.record({
    major: fc.integer({ min: 0, max: 1000 }),
    minor: fc.integer({ min: 0, max: 1000 }),
    patch: fc.integer({ min: 0, max: 1000 }),
  });
  fc.assert(
    fc.property(
      releaseArb,
      fc.constantFrom<ReleaseType>("major", "minor", "patch"),
      (p, kind) => {
        const before = new Version(p);
        const after = Version.parse(bumpFor(before, kind));
        assert.equal(compareVersions(before, after), -1);
        const expected = kind === "major"
          ? [p.major + 1, 0, 0]
          : kind === "minor"
          ? [p.major, p.minor + 1, 0]
          : [p.major, p.minor, p.patch + 1];
        assert.deepEqual([after.major, after.minor, after.patch], expected);
        // A non-major bump of a 1.x+ version stays within ^before; a major bump leaves it.
        if (p.major > 0) {
          assert.equal(
            satisfies(after, `^${before}`),
            kind !== "major",
          );
        }
      },
    ),
  );
});
