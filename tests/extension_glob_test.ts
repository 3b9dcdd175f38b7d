import assert from "node:assert/strict";
import { globToRegExp, matchesGlob } from "../extension/src/glob.ts";

Deno.test("matchesGlob() matches **/*.tool.json at any depth, including the top", () => {
  const glob = "**/*.tool.json";
  for (const p of ["a.tool.json", "tools/a.tool.json", "x/y/z/payments.lookup.tool.json"]) {
    assert.equal(matchesGlob(glob, p), true, p);
  }
  for (const p of ["a.json", "tools/a.tool.json.bak", "corpus/tools/a/1.0.0.json", "atool.json"]) {
    assert.equal(matchesGlob(glob, p), false, p);
  }
});

Deno.test("matchesGlob() keeps * and ? within one folder; a glob without / matches the file name", () => {
  assert.equal(matchesGlob("drafts/*.tool.json", "drafts/a.tool.json"), true);
  assert.equal(matchesGlob("drafts/*.tool.json", "drafts/x/a.tool.json"), false);
  assert.equal(matchesGlob("drafts/?.tool.json", "drafts/a.tool.json"), true);
  assert.equal(matchesGlob("drafts/?.tool.json", "drafts/ab.tool.json"), false);
  assert.equal(matchesGlob("*.tool.json", "deep/down/a.tool.json"), true);
});

Deno.test("matchesGlob() supports {a,b} alternatives, [...] classes and **/ in the middle", () => {
  assert.equal(matchesGlob("{drafts,next}/**/*.tool.json", "next/a/b.tool.json"), true);
  assert.equal(matchesGlob("{drafts,next}/**/*.tool.json", "next/b.tool.json"), true);
  assert.equal(matchesGlob("{drafts,next}/**/*.tool.json", "old/b.tool.json"), false);
  assert.equal(matchesGlob("v[0-9].tool.json", "v7.tool.json"), true);
  assert.equal(matchesGlob("v[!0-9].tool.json", "v7.tool.json"), false);
  assert.equal(matchesGlob("a+b(c).tool.json", "a+b(c).tool.json"), true);
});

Deno.test("globToRegExp() refuses an unclosed { or [", () => {
  assert.throws(() => globToRegExp("{a,b"), SyntaxError);
  assert.throws(() => globToRegExp("[ab"), SyntaxError);
});
