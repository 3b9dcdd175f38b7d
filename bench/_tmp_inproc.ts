import { EstateDir } from "../lib/store/estate_dir.ts";
import { estateServer } from "../lib/cli/serve.ts";
import { exampleBank } from "../examples/bank_system.ts";
import { STATELESS_META } from "../mod.ts";
const estate = EstateDir.open(new URL("../corpus", import.meta.url).pathname);
const server = estateServer(estate, { system: exampleBank({ registry: estate.registry }), log: () => {}, recordCalls: false });
const principal = { id: "wholesale-operator", scopes: ["payments:read", "payments:release", "fx:quote", "policy:read"], tenant: "wholesale", clearance: "restricted" as const };
const session = server.openSession({ principal, notify: () => {} });
await server.handle({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } } }, session);
await server.handle({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
const args = (i: number) => ({ sell: "EUR", buy: "USD", amount: 1000 + i % 997 });
const N = 20000;
for (let round = 0; round < 4; round++) {
  let t = performance.now();
  for (let i = 0; i < N; i++) { const r = await server.handle({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "fx.quote", arguments: args(i) } }, session) as any; if (!r.result) throw new Error(JSON.stringify(r)); }
  const s = (performance.now() - t) * 1000 / N;
  t = performance.now();
  for (let i = 0; i < N; i++) { const r = await server.handleStateless({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "fx.quote", arguments: args(i), _meta: { [STATELESS_META.protocolVersion]: "2026-07-28", [STATELESS_META.clientCapabilities]: {} } } }, { principal }) as any; if (!r.result) throw new Error(JSON.stringify(r)); }
  const l = (performance.now() - t) * 1000 / N;
  console.log(`session ${s.toFixed(1)}µs stateless ${l.toFixed(1)}µs`);
}
server.close();
