/**
 * Corpus replay at scale: a `calls.jsonl` of 1,000,000 stored `payments.initiate` calls (about
 * 10% of them invalid, like bench/_calls.ts), then, each in its own process so that peak memory
 * is per measurement:
 *
 *   parse    read the file in 64 KiB chunks, split lines, JSON.parse each (the yardstick)
 *   read     readCallsFile(): the same, plus checking each line is a stored call
 *   replay   EstateDir.open() and registry.plan() of a minor version: every call streamed through
 *            readCalls() and validateSchema() — what a publish does
 *
 * and replay again with V8's heap capped at 32 MiB, to show that memory stays flat.
 *
 * Run: `deno run -A bench/replay_bench.ts [calls]` (default 1,000,000; the file is about 0.5 GB
 * and is written to, and removed from, a temporary folder).
 */
import fs from "node:fs";
import type { ToolSpec } from "../mod.ts";
import { EstateDir, readCallsFile } from "../lib/store/mod.ts";
import { readLines } from "../lib/store/_lines.ts";
import { breakArgs, paymentArgs, rng, SCHEMAS } from "./_calls.ts";

const TOOL = "payments.initiate";

const v1: ToolSpec = {
  name: TOOL,
  version: "1.0.0",
  title: "Initiate a payment",
  description: "Initiates a wholesale credit transfer. Writes to the payments system of record.",
  inputSchema: SCHEMAS[TOOL],
  sideEffect: "irreversible",
  requiredScopes: ["payments:write"],
  dataClassification: "restricted",
  tenants: ["wholesale"],
  owner: "payments-platform",
};

/** 1.1.0 adds an optional property: a minor change, so publish replays the 1.x calls. */
const v1_1: ToolSpec = {
  ...v1,
  version: "1.1.0",
  inputSchema: {
    ...SCHEMAS[TOOL] as Record<string, unknown>,
    properties: {
      ...(SCHEMAS[TOOL] as { properties: Record<string, unknown> }).properties,
      purpose: { type: "string", enum: ["SUPP", "SALA", "TAXS", "INTC"] },
    },
  },
};

/** Writes `n` stored calls of payments.initiate, as an agent platform would record them. */
function writeCalls(file: string, n: number): void {
  const r = rng(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const principals = ["treasury-agent", "ops-bot", "payments-assistant", "reconciler"];
  const fd = fs.openSync(file, "w");
  const start = Date.parse("2026-01-05T00:00:00Z");
  let batch: string[] = [];
  for (let i = 0; i < n; i++) {
    const args = paymentArgs(r, [
      "Acme Trading Ltd",
      "Northwind GmbH",
      "Contoso Bank plc",
      "Müller & Söhne KG",
    ]);
    if (r() < 0.1) breakArgs(args, r); // the mistakes agents make
    batch.push(JSON.stringify({
      version: "1.0.0",
      arguments: args,
      principal: pick(principals),
      at: new Date(start + i * 1000).toISOString(),
    }));
    if (batch.length === 10_000 || i === n - 1) {
      fs.writeSync(fd, batch.join("\n") + "\n");
      batch = [];
    }
  }
  fs.closeSync(fd);
}

/** Peak resident memory of this process, from /proc (Linux); else the current RSS. */
function peakRss(): { rss: number; peak: boolean } {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
    if (m) return { rss: Number(m[1]) * 1024, peak: true };
  } catch {
    // Not Linux.
  }
  return { rss: Deno.memoryUsage().rss, peak: false };
}

interface Measurement {
  ms: number;
  rss: number;
  peak: boolean;
  rejected?: number;
}

/** One measurement, in this (child) process. */
function measure(mode: string, dir: string): Measurement {
  const file = `${dir}/tools/${TOOL}/calls.jsonl`;
  let sink = 0, rejected: number | undefined;
  const t0 = performance.now();
  if (mode === "parse") {
    for (const [, text] of readLines(file)) sink += JSON.parse(text ?? "") ? 1 : 0;
  } else if (mode === "read") {
    for (const _ of readCallsFile(file)) sink++;
  } else if (mode === "replay") {
    rejected = EstateDir.open(dir).registry.plan(v1_1).rejected.count;
  } else throw new Error(`unknown mode ${mode}`);
  const ms = performance.now() - t0;
  if (sink < 0) console.log(sink);
  return { ms, ...peakRss(), rejected };
}

// A script, not a Deno.bench file: nothing runs when `deno bench` merely loads it.
if (import.meta.main) {
  const [flag, dirArg] = Deno.args;
  if (flag?.startsWith("--measure=")) {
    console.log(JSON.stringify(measure(flag.slice("--measure=".length), dirArg)));
  } else {
    const n = Number(flag ?? 1_000_000);
    const dir = await Deno.makeTempDir({ prefix: "replay-bench-" });
    try {
      const estate = EstateDir.open(dir);
      estate.publish(v1);
      const file = `${dir}/tools/${TOOL}/calls.jsonl`;
      const t0 = performance.now();
      writeCalls(file, n);
      const size = fs.statSync(file).size;
      console.log(
        `${n.toLocaleString("en")} calls, ${(size / 1e6).toFixed(0)} MB (${
          (size / n).toFixed(0)
        } bytes a call), written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
      );
      const results: Record<string, Measurement> = {};
      const runs: [string, string, string[]][] = [
        ["parse", "parse", []],
        ["read", "read", []],
        ["replay", "replay", []],
        // The same with the V8 heap capped far below the file's size: it fits, so memory is flat.
        ["replay, heap ≤ 32 MiB", "replay", ["--v8-flags=--max-old-space-size=32"]],
      ];
      for (const [label, mode, flags] of runs) {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            ...flags,
            new URL(import.meta.url).pathname,
            `--measure=${mode}`,
            dir,
          ],
          cwd: new URL("..", import.meta.url).pathname,
          stderr: "inherit",
        }).output();
        if (!out.success) throw new Error(`the ${label} measurement failed`);
        results[label] = JSON.parse(new TextDecoder().decode(out.stdout));
      }
      const base = results.parse;
      const rows = [
        ["", "time", "calls/s", "peak RSS", "time ÷ parse"],
        ...Object.entries(results).map(([mode, m]) => [
          mode,
          `${(m.ms / 1000).toFixed(2)} s`,
          `${Math.round(n / (m.ms / 1000)).toLocaleString("en")}`,
          `${(m.rss / 2 ** 20).toFixed(0)} MiB${m.peak ? "" : " (current, not peak)"}`,
          `${(m.ms / base.ms).toFixed(2)}×`,
        ]),
      ];
      const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
      for (const r of rows) console.log(r.map((cell, c) => cell.padEnd(widths[c])).join("  "));
      console.log(
        `\nreplay: 1.1.0 rejects ${results.replay.rejected?.toLocaleString("en")} of ${
          n.toLocaleString("en")
        } calls (the ones an agent got wrong)`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
}
