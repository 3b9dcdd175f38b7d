import assert from "node:assert/strict";
import fc from "fast-check";
import { CallStats, type StoredCall, versionImpact } from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";

const VERSIONS = ["1.0.0", "1.1.0", "2.0.0"];
const PRINCIPALS = ["retail-agent", "ops-bot", "teller", "a", "b"];

const callArb: fc.Arbitrary<StoredCall> = fc.record({
  version: fc.constantFrom(...VERSIONS),
  arguments: fc.constant({}),
  principal: fc.constantFrom(...PRINCIPALS),
  // Times across a few days, with repeats (equal times: the later call's `at` is last seen).
  at: fc.integer({ min: 0, max: 5 * 24 * 60 }).chain((m) =>
    fc.constantFrom(
      new Date(Date.UTC(2027, 2, 1) + m * 60_000).toISOString(),
      new Date(Date.UTC(2027, 2, 1) + m * 60_000).toISOString().replace(".000Z", "Z"),
    )
  ),
});

Deno.test("CallStats.callers() is versionImpact()'s tally, call for call (the aggregate never disagrees with the scan)", () => {
  fc.assert(
    fc.property(fc.array(callArb, { maxLength: 200 }), (calls) => {
      const stats = new CallStats();
      for (const c of calls) stats.add(c);
      for (const v of VERSIONS) {
        const scan = versionImpact(calls, v);
        assert.deepEqual(stats.callers(v), { calls: scan.calls, callers: scan.callers });
      }
      assert.equal(stats.calls, calls.length);
    }),
  );
});

Deno.test("CallStats.days() counts each call once, on its UTC day, per version", () => {
  fc.assert(
    fc.property(fc.array(callArb, { maxLength: 200 }), (calls) => {
      const stats = new CallStats();
      for (const c of calls) stats.add(c);
      const expected = new Map<string, number>();
      for (const c of calls) {
        const key = `${c.version} ${new Date(c.at).toISOString().slice(0, 10)}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
      const got = new Map(stats.days().map((d) => [`${d.version} ${d.day}`, d.calls]));
      assert.deepEqual(got, expected);
    }),
  );
});

Deno.test("CallStats over the example estate's stored calls agrees with the impact report of every version", () => {
  const estate = EstateDir.open(new URL("../corpus/", import.meta.url).pathname);
  for (const name of estate.registry.names()) {
    const calls = [...estate.readCalls(name)];
    const stats = new CallStats();
    for (const c of calls) stats.add(c);
    for (const r of estate.registry.versions(name)) {
      const scan = versionImpact(calls, r.spec.version);
      assert.deepEqual(stats.callers(r.spec.version).callers, scan.callers, name);
    }
  }
});
