/**
 * The two protocol eras on one server, the server's own work only (issue 26): `tools/call` of the
 * example estate's fx.quote as `wholesale-operator`, through `estateServer` over the corpus (the
 * call log, the limits and the deprecation lookups of `estate serve`), in process with no
 * transport — a handshake-era session (`handle`) and stateless 2026-07-28 requests
 * (`handleStateless`), with varied amounts and currency pairs. Rounds of `--calls` calls per era,
 * the order rotated round by round, after a warm-up; µs per call, median round ± the farthest; the
 * ratio is the median of the within-round ratios. `hop_bench.ts` measures the same over HTTP.
 *
 *   deno task run bench/eras_bench.ts [--calls 20000] [--rounds 7]
 */
import { EstateDir } from "../lib/store/estate_dir.ts";
import { estateServer } from "../lib/cli/serve.ts";
import { exampleBank } from "../examples/bank_system.ts";
import { type Principal, STATELESS_META } from "../mod.ts";
import { ready } from "../tests/_mcp_fixtures.ts";
import { flag, markdownTable, median, ratio, rotate, roundRatio, spread } from "./_stats.ts";

const CALLS = flag(Deno.args, "calls", 20_000);
const ROUNDS = flag(Deno.args, "rounds", 7);
const CCY = ["EUR", "GBP", "USD", "CHF", "JPY"];

const estate = EstateDir.open(new URL("../corpus", import.meta.url).pathname);
const server = estateServer(estate, {
  system: exampleBank({ registry: estate.registry }),
  log: () => {},
  recordCalls: false,
});
const principal: Principal = {
  id: "wholesale-operator",
  scopes: ["payments:read", "payments:release", "fx:quote", "policy:read"],
  tenant: "wholesale",
  clearance: "restricted",
};
const session = await ready(server, principal);

const args = (i: number) => ({
  sell: CCY[i % 5],
  buy: CCY[(i + 1 + (i >> 3) % 4) % 5],
  amount: 1000 + (i % 997) * 13,
});
const ENVELOPE = {
  [STATELESS_META.protocolVersion]: "2026-07-28",
  [STATELESS_META.clientCapabilities]: {},
};

type Era = "handshake session" | "stateless";
const ERAS: Era[] = ["handshake session", "stateless"];

async function run(era: Era, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const answer = (era === "stateless"
      ? await server.handleStateless({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name: "fx.quote", arguments: args(i), _meta: ENVELOPE },
      }, { principal })
      : await server.handle({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name: "fx.quote", arguments: args(i) },
      }, session)) as { result?: { isError?: boolean } } | undefined;
    if (!answer?.result || answer.result.isError) {
      throw new Error(`fx.quote failed: ${JSON.stringify(answer)}`);
    }
  }
  return (performance.now() - t0) * 1000 / n;
}

const times = new Map<Era, number[]>(ERAS.map((e) => [e, []]));
for (let round = -1; round < ROUNDS; round++) {
  for (const era of rotate(ERAS, Math.max(0, round))) {
    const t = await run(era, round < 0 ? 2_000 : CALLS);
    if (round >= 0) times.get(era)!.push(t);
  }
}
server.close();
const base = times.get("handshake session")!;
console.log(
  `tools/call fx.quote in process, ${CALLS} calls per era per round, ${ROUNDS} rounds:\n`,
);
console.log(markdownTable(
  ["era", "µs per call", "spread", "calls per second ÷ session's"],
  ERAS.map((e) => [
    e,
    median(times.get(e)!).toFixed(1),
    spread(times.get(e)!),
    ratio(roundRatio(base, times.get(e)!)),
  ]),
));
