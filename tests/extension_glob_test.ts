import assert from "node:assert/strict";
import { estateFilesGlob, globToRegExp, matchesGlob } from "../extension/src/glob.ts";

Deno.test("matchesGlob() matches **/*.tool.json at any depth, including the top", () => {
  const glob = "**/*.tool.json";
  for (
    const p of [
      "a.tool.json",
      "tools/a.tool.json",
      "x/y/z/payments.lookup.tool.json",
    ]
  ) {
    assert.equal(matchesGlob(glob, p), true, p);
  }
  for (
    const p of [
      "a.json",
      "tools/a.tool.json.bak",
      "corpus/tools/a/1.0.0.json",
      "atool.json",
    ]
  ) {
    assert.equal(matchesGlob(glob, p), false, p);
  }
});

Deno.test("matchesGlob() keeps * and ? within one folder; a glob without / matches the file name", () => {
  assert.equal(matchesGlob("drafts/*.tool.json", "drafts/a.tool.json"), true);
  assert.equal(
    matchesGlob("drafts/*.tool.json", "drafts/x/a.tool.json"),
    false,
  );
  assert.equal(matchesGlob("drafts/?.tool.json", "drafts/a.tool.json"), true);
  assert.equal(matchesGlob("drafts/?.tool.json", "drafts/ab.tool.json"), false);
  assert.equal(matchesGlob("*.tool.json", "deep/down/a.tool.json"), true);
});

Deno.test("matchesGlob() supports {a,b} alternatives, [...] classes and **/ in the middle", () => {
  assert.equal(
    matchesGlob("{drafts,next}/**/*.tool.json", "next/a/b.tool.json"),
    true,
  );
  assert.equal(
    matchesGlob("{drafts,next}/**/*.tool.json", "next/b.tool.json"),
    true,
  );
  assert.equal(
    matchesGlob("{drafts,next}/**/*.tool.json", "old/b.tool.json"),
    false,
  );
  assert.equal(matchesGlob("v[0-9].tool.json", "v7.tool.json"), true);
  assert.equal(matchesGlob("v[!0-9].tool.json", "v7.tool.json"), false);
  assert.equal(matchesGlob("a+b(c).tool.json", "a+b(c).tool.json"), true);
});

Deno.test("globToRegExp() refuses an unclosed { or [", () => {
  assert.throws(() => globToRegExp("{a,b"), SyntaxError);
  assert.throws(() => globToRegExp("[ab"), SyntaxError);
});

Deno.test("estateFilesGlob() matches the estate's version files by absolute path, and nothing beside them", () => {
  const corpus = estateFilesGlob("corpus");
  assert.equal(corpus, "**/corpus/tools/*/[0-9]*.json");
  for (
    const p of [
      "/ws/corpus/tools/fx.quote/1.0.0.json",
      "/ws/corpus/tools/a/2.0.0-rc.1.json",
    ]
  ) {
    assert.equal(matchesGlob(corpus, p), true, p);
  }
  for (
    const p of [
      "/ws/corpus/tools/fx.quote/lifecycle.json",
      "/ws/corpus/tools/fx.quote/calls.jsonl",
      "/ws/corpus/tools/fx.quote/1.0.0.json.bak",
      "/ws/corpus/drift.jsonl",
      "/ws/other/tools/fx.quote/1.0.0.json",
      "/ws/drafts/fx.quote.tool.json",
    ]
  ) {
    assert.equal(matchesGlob(corpus, p), false, p);
  }
  assert.equal(
    estateFilesGlob("./estates/main/"),
    "**/estates/main/tools/*/[0-9]*.json",
  );
  assert.equal(
    estateFilesGlob("../shared\\estate"),
    "**/shared/estate/tools/*/[0-9]*.json",
  );
  assert.equal(
    estateFilesGlob("/srv/estate"),
    "/srv/estate/tools/*/[0-9]*.json",
  );
  assert.equal(estateFilesGlob("C:\\estate"), "C:/estate/tools/*/[0-9]*.json");
  assert.equal(estateFilesGlob("."), "**/tools/*/[0-9]*.json");
});
