/**
 * Semantic versions (semver.org 2.0.0) and npm-style version constraints.
 *
 * Parsing is strict: exactly `MAJOR.MINOR.PATCH`, with an optional `-prerelease` and `+build`;
 * no `v` prefix, no leading zeros, no surrounding whitespace. Precedence and constraint
 * matching follow npm's `semver` package, which this module (and only this module) uses.
 *
 * @module
 */

import npmSemverUntyped from "semver";

/** The few functions of npm's `semver` used here (the package ships no types). */
interface NpmSemver {
  compare(a: string, b: string): -1 | 0 | 1;
  satisfies(version: string, range: string): boolean;
  validRange(range: string): string | null;
  inc(version: string, release: ReleaseType): string | null;
}
const npmSemver: NpmSemver = npmSemverUntyped;

/** The three kinds of release, from most to least disruptive. */
export type ReleaseType = "major" | "minor" | "patch";

/** The parts of a version, for {@linkcode Version}'s constructor. */
export interface VersionParts {
  /** Incompatible changes. A non-negative integer. */
  major: number;
  /** Backward-compatible additions. A non-negative integer. */
  minor: number;
  /** Backward-compatible fixes. A non-negative integer. */
  patch: number;
  /** Dot-separated pre-release identifiers, e.g. `["rc", "1"]`; empty or absent for a release. */
  prerelease?: readonly string[];
  /** Dot-separated build identifiers, e.g. `["build", "5"]`; ignored by precedence. */
  build?: readonly string[];
}

// npm's semver refuses longer strings; so do we, so that every Version can be compared.
const MAX_LENGTH = 256;
const NUM = "(?:0|[1-9][0-9]*)";
const PRE_ID = "(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)";
const BUILD_ID = "[0-9A-Za-z-]+";
const PRE = `(?:-(${PRE_ID}(?:\\.${PRE_ID})*))`;
const BUILD = `(?:\\+(${BUILD_ID}(?:\\.${BUILD_ID})*))`;
const VERSION = new RegExp(`^(${NUM})\\.(${NUM})\\.(${NUM})${PRE}?${BUILD}?$`);
const PRE_ID_ONLY = new RegExp(`^${PRE_ID}$`);
const BUILD_ID_ONLY = new RegExp(`^${BUILD_ID}$`);

function show(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** Says why `text` is not a strict version, for the error message. */
function versionProblem(text: string): string {
  if (text.length > MAX_LENGTH) return `longer than ${MAX_LENGTH} characters`;
  if (text.trim() !== text) return "remove the surrounding whitespace";
  if (/^[vV=]/.test(text)) {
    return `remove the leading ${JSON.stringify(text[0])}`;
  }
  const core = text.split(/[-+]/, 1)[0];
  const parts = core.split(".");
  if (parts.length !== 3 || parts.some((p) => !/^[0-9]+$/.test(p))) {
    return "expected three numbers MAJOR.MINOR.PATCH, e.g. 1.2.3, then optional -prerelease " +
      "and +build";
  }
  const zero = parts.find((p) => p.length > 1 && p.startsWith("0"));
  if (zero !== undefined) return `${zero} has a leading zero`;
  return "malformed -prerelease or +build part (dot-separated [0-9A-Za-z-] identifiers, " +
    "numeric ones without leading zeros)";
}

/**
 * A semantic version, parsed strictly.
 *
 * @example
 * ```ts
 * import { Version } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const v = Version.parse("1.4.2-rc.1+build.5");
 * assert.equal(v.major, 1);
 * assert.deepEqual(v.prerelease, ["rc", "1"]);
 * assert.equal(v.toString(), "1.4.2-rc.1+build.5");
 * assert.throws(() => Version.parse("v1.2.3"), TypeError);
 * ```
 */
export class Version {
  /** Incompatible changes. */
  readonly major: number;
  /** Backward-compatible additions. */
  readonly minor: number;
  /** Backward-compatible fixes. */
  readonly patch: number;
  /** Pre-release identifiers, e.g. `["rc", "1"]`; empty for a release. */
  readonly prerelease: readonly string[];
  /** Build identifiers; ignored by precedence. */
  readonly build: readonly string[];

  /**
   * Makes a version from its parts.
   *
   * @param parts The numbers and identifiers.
   * @throws {TypeError} When a number is not a non-negative safe integer, an identifier is
   *   malformed, or the version would be longer than 256 characters.
   */
  constructor(parts: VersionParts) {
    for (const name of ["major", "minor", "patch"] as const) {
      const n = parts[name];
      if (!Number.isSafeInteger(n) || n < 0) {
        throw new TypeError(
          `Invalid version: ${name} must be a non-negative integer, got ${show(n)}`,
        );
      }
    }
    const prerelease = Object.freeze([...parts.prerelease ?? []]);
    const build = Object.freeze([...parts.build ?? []]);
    for (const id of prerelease) {
      if (typeof id !== "string" || !PRE_ID_ONLY.test(id)) {
        throw new TypeError(
          `Invalid version: bad pre-release identifier ${show(id)}`,
        );
      }
    }
    for (const id of build) {
      if (typeof id !== "string" || !BUILD_ID_ONLY.test(id)) {
        throw new TypeError(
          `Invalid version: bad build identifier ${show(id)}`,
        );
      }
    }
    this.major = parts.major;
    this.minor = parts.minor;
    this.patch = parts.patch;
    this.prerelease = prerelease;
    this.build = build;
    const text = this.toString();
    if (text.length > MAX_LENGTH) {
      throw new TypeError(
        `Invalid version: longer than ${MAX_LENGTH} characters`,
      );
    }
  }

  /**
   * Parses a version strictly: `1.2.3`, `1.2.3-rc.1`, `1.2.3+build.5`.
   *
   * @param text The version.
   * @returns The version.
   * @throws {TypeError} Naming the input and what is wrong with it, e.g. for `v1.2.3`, `1.2`,
   *   `01.2.3` or ` 1.2.3`.
   *
   * @example
   * ```ts
   * import { Version } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   * assert.equal(Version.parse("2.0.0").major, 2);
   * assert.throws(() => Version.parse("1.2"), /Invalid version "1.2"/);
   * ```
   */
  static parse(text: string): Version {
    if (typeof text !== "string") {
      throw new TypeError(`Invalid version ${show(text)}: expected a string`);
    }
    const m = text.length <= MAX_LENGTH ? VERSION.exec(text) : null;
    if (m === null) {
      throw new TypeError(
        `Invalid version ${JSON.stringify(text)}: ${versionProblem(text)}`,
      );
    }
    const numbers = [m[1], m[2], m[3]].map(Number);
    const huge = numbers.findIndex((n) => !Number.isSafeInteger(n));
    if (huge >= 0) {
      throw new TypeError(
        `Invalid version ${JSON.stringify(text)}: ${m[huge + 1]} is larger than 2^53 - 1`,
      );
    }
    return new Version({
      major: numbers[0],
      minor: numbers[1],
      patch: numbers[2],
      prerelease: m[4] === undefined ? [] : m[4].split("."),
      build: m[5] === undefined ? [] : m[5].split("."),
    });
  }

  /**
   * Formats the version; `Version.parse(v.toString())` gives back an equal version.
   *
   * @returns E.g. `1.2.3-rc.1+build.5`.
   */
  toString(): string {
    let text = `${this.major}.${this.minor}.${this.patch}`;
    if (this.prerelease.length > 0) text += `-${this.prerelease.join(".")}`;
    if (this.build.length > 0) text += `+${this.build.join(".")}`;
    return text;
  }

  /**
   * The version as JSON: its string form.
   *
   * @returns The same as {@linkcode Version.prototype.toString}.
   */
  toJSON(): string {
    return this.toString();
  }
}

function asVersion(version: Version | string): Version {
  return version instanceof Version ? version : Version.parse(version);
}

/**
 * Compares two versions by semver precedence: numbers numerically, a pre-release before its
 * release, build metadata ignored.
 *
 * @param a A version or its string.
 * @param b A version or its string.
 * @returns `-1` when `a` comes first, `1` when `b` does, `0` when they are equal in precedence.
 * @throws {TypeError} When a string is not a strict version.
 *
 * @example
 * ```ts
 * import { compareVersions } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(compareVersions("1.10.0", "1.9.0"), 1);
 * assert.equal(compareVersions("1.0.0-rc.1", "1.0.0"), -1);
 * assert.equal(compareVersions("1.0.0+a", "1.0.0+b"), 0);
 * ```
 */
export function compareVersions(
  a: Version | string,
  b: Version | string,
): -1 | 0 | 1 {
  return npmSemver.compare(asVersion(a).toString(), asVersion(b).toString());
}

const OPERATOR = "(?:\\^|~|>=|<=|>|<|=)";
const XNUM = "(?:0|[1-9][0-9]*|[xX*])";
const PARTIAL = `${XNUM}(?:\\.${XNUM}(?:\\.${XNUM}${PRE}?${BUILD}?)?)?`;
const HYPHEN_RANGE = new RegExp(`^${PARTIAL}\\s+-\\s+${PARTIAL}$`);
const COMPARATOR = new RegExp(`^${OPERATOR}?${PARTIAL}$`);

/** Says why `text` is not a valid constraint, or undefined when it is. */
function constraintProblem(text: string): string | undefined {
  if (text.trim() === "") return "it is empty (use * to allow any version)";
  for (const alternative of text.split("||")) {
    const alt = alternative.trim();
    if (alt === "") return "an alternative around || is empty";
    if (HYPHEN_RANGE.test(alt)) continue;
    for (
      const comparator of alt.replace(
        new RegExp(`(${OPERATOR})\\s+`, "g"),
        "$1",
      ).split(/\s+/)
    ) {
      if (!COMPARATOR.test(comparator)) {
        return `${JSON.stringify(comparator)} is not a comparator (an optional ^ ~ >= <= > < = ` +
          "followed by a version such as 1.2.3, 1.2 or 1.x)";
      }
    }
  }
  return npmSemver.validRange(text) === null ? "not a valid range" : undefined;
}

/**
 * Tells whether text is a valid version constraint for {@linkcode satisfies}.
 *
 * @param text E.g. `^1.2.0`, `~1.2.3`, `>=1.2.0 <2.0.0`, `1.2.3 - 2.3.4`, `1.x || ^2.0.0`, `*`.
 * @returns `true` when `satisfies` accepts it.
 *
 * @example
 * ```ts
 * import { isValidConstraint } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isValidConstraint("^1.2.0 || ~2.0.1"), true);
 * assert.equal(isValidConstraint("latest"), false);
 * ```
 */
export function isValidConstraint(text: string): boolean {
  return typeof text === "string" && constraintProblem(text) === undefined;
}

/**
 * Tells whether a version meets a constraint, with npm's semantics:
 *
 * - `1.2.3` or `=1.2.3`: exactly that version (build metadata ignored);
 * - `^1.2.3` := `>=1.2.3 <2.0.0`, `^0.2.3` := `>=0.2.3 <0.3.0`, `^0.0.3` := `>=0.0.3 <0.0.4`;
 * - `~1.2.3` := `>=1.2.3 <1.3.0`;
 * - comparators separated by spaces must all hold (`>=1.2.0 <2.0.0`); `1.2.3 - 2.3.4` is
 *   inclusive; `||` separates alternatives; `*`, `1.x` and `1.2` are wildcards.
 *
 * A pre-release version (`1.3.0-rc.1`) satisfies a constraint only when one of its comparators
 * names a pre-release of the same `MAJOR.MINOR.PATCH`.
 *
 * @param version A version or its string.
 * @param constraint The constraint.
 * @returns `true` when `version` meets `constraint`.
 * @throws {TypeError} When `version` is not a strict version, or `constraint` is not a valid
 *   constraint (the message quotes it and says why).
 *
 * @example
 * ```ts
 * import { satisfies } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(satisfies("1.9.0", "^1.2.0"), true);
 * assert.equal(satisfies("0.3.0", "^0.2.3"), false);
 * assert.equal(satisfies("2.3.4", "1.2.3 - 2.3.4"), true);
 * assert.throws(() => satisfies("1.0.0", "latest"), TypeError);
 * ```
 */
export function satisfies(
  version: Version | string,
  constraint: string,
): boolean {
  const v = asVersion(version);
  if (typeof constraint !== "string") {
    throw new TypeError(
      `Invalid version constraint ${show(constraint)}: expected a string`,
    );
  }
  const problem = constraintProblem(constraint);
  if (problem !== undefined) {
    throw new TypeError(
      `Invalid version constraint ${JSON.stringify(constraint)}: ${problem}`,
    );
  }
  return npmSemver.satisfies(v.toString(), constraint);
}

/**
 * The next version for a release of the given kind: major resets minor and patch, minor resets
 * patch. Build metadata is dropped. A pre-release is released rather than skipped:
 * `2.0.0-rc.1` bumped for major gives `2.0.0` (npm's rule).
 *
 * @param version The current version or its string.
 * @param release `"major"`, `"minor"` or `"patch"`.
 * @returns The next version's string.
 * @throws {TypeError} When `version` is not a strict version or `release` is not one of the
 *   three kinds.
 *
 * @example
 * ```ts
 * import { bumpFor } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(bumpFor("1.4.2", "major"), "2.0.0");
 * assert.equal(bumpFor("1.4.2", "minor"), "1.5.0");
 * assert.equal(bumpFor("1.4.2", "patch"), "1.4.3");
 * ```
 */
export function bumpFor(
  version: Version | string,
  release: ReleaseType,
): string {
  const v = asVersion(version);
  if (release !== "major" && release !== "minor" && release !== "patch") {
    throw new TypeError(
      `bumpFor(): release must be "major", "minor" or "patch", got ${show(release)}`,
    );
  }
  const next = npmSemver.inc(v.toString(), release);
  if (next === null) {
    throw new TypeError(`bumpFor(): cannot bump ${v} for ${release}`);
  }
  return next;
}
