/**
 * `list_cache.ts`: the keys of a shared store (a public entry is one per server and list; a
 * private one also per authorization context, and no two contexts ever share a key) and the
 * freshness of a walk of pages (the shortest `ttlMs`; private if any page was), as laws.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { foldFreshness, type Freshness, listCacheKey, type ListCacheStore } from "../mod.ts";

/** Any string, the separators and quotes a naive key would trip over included. */
const text = fc.oneof(
  fc.string(),
  fc.constantFrom("", "|", '"', "\\", '","', "a@b", "\u0000"),
);

Deno.test("listCacheKey(): a public entry ignores the partition; a private one is per partition", () => {
  assert.equal(
    listCacheKey("s@1", "tools/list", "public", "alice"),
    listCacheKey("s@1", "tools/list", "public", "bob"),
  );
  assert.equal(
    listCacheKey("s@1", "tools/list", "public"),
    listCacheKey("s@1", "tools/list", "public", "x"),
  );
  assert.notEqual(
    listCacheKey("s@1", "tools/list", "private", "alice"),
    listCacheKey("s@1", "tools/list", "private", "bob"),
  );
  assert.notEqual(
    listCacheKey("s@1", "tools/list", "private", ""),
    listCacheKey("s@1", "tools/list", "public"),
    "a private entry never lands on the public key",
  );
});

Deno.test("property: listCacheKey() is injective — different (server, list, scope, partition) never share a key", () => {
  const entry = fc.record({
    server: text,
    method: text,
    scope: fc.constantFrom("public" as const, "private" as const),
    partition: text,
  });
  fc.assert(
    fc.property(entry, entry, (a, b) => {
      const same = a.server === b.server && a.method === b.method &&
        a.scope === b.scope &&
        (a.scope === "public" || a.partition === b.partition);
      const ka = listCacheKey(a.server, a.method, a.scope, a.partition);
      const kb = listCacheKey(b.server, b.method, b.scope, b.partition);
      assert.equal(ka === kb, same);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("foldFreshness(): a missing, negative, non-finite or non-number ttlMs is 0; an unknown scope is private", () => {
  for (const ttlMs of [undefined, -5, 0, NaN, Infinity, "60000", null]) {
    assert.deepEqual(
      foldFreshness(undefined, { ttlMs, cacheScope: "public" }),
      {
        ttlMs: 0,
        scope: "public",
      },
      String(ttlMs),
    );
  }
  for (const cacheScope of [undefined, "shared", "PUBLIC", 1]) {
    assert.equal(
      foldFreshness(undefined, { ttlMs: 10, cacheScope }).scope,
      "private",
    );
  }
  assert.deepEqual(
    foldFreshness(undefined, { ttlMs: 1.5, cacheScope: "public" }),
    {
      ttlMs: 1.5,
      scope: "public",
    },
  );
});

const page = fc.record({
  ttlMs: fc.oneof(
    fc.nat(100_000),
    fc.constantFrom(undefined, -1, NaN, Infinity),
  ),
  cacheScope: fc.constantFrom<unknown>("public", "private", undefined, "odd"),
}, { requiredKeys: [] });

Deno.test("property: a walk's freshness does not depend on page order, and no page is kept longer than it allows", () => {
  fc.assert(
    fc.property(
      fc.array(page, { minLength: 1, maxLength: 8 }),
      fc.nat(),
      (pages, seed) => {
        const fold = (ps: Record<string, unknown>[]): Freshness =>
          ps.reduce<Freshness | undefined>(
            (acc, p) => foldFreshness(acc, p),
            undefined,
          )!;
        const shuffled = [...pages].sort((x, y) =>
          ((JSON.stringify(x).length * 31 + seed) % 7) -
          ((JSON.stringify(y).length * 31 + seed) % 7)
        );
        const all = fold(pages);
        assert.deepEqual(fold(shuffled), all);
        for (const p of pages) {
          const one = foldFreshness(undefined, p);
          assert.ok(all.ttlMs <= one.ttlMs, "kept longer than a page allows");
          if (one.scope === "private") assert.equal(all.scope, "private");
        }
        assert.equal(
          all.scope === "public",
          pages.every((p) => p.cacheScope === "public"),
        );
      },
    ),
  );
});

Deno.test("a plain Map is a ListCacheStore", () => {
  const store: ListCacheStore = new Map();
  const key = listCacheKey("s", "tools/list", "public");
  store.set(key, { items: [1], expiresAt: 5, scope: "public" });
  assert.deepEqual(store.get(key)?.items, [1]);
  store.delete(key);
  assert.equal(store.get(key), undefined);
});
