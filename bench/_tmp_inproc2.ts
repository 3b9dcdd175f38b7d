import { EstateDir } from "../lib/store/estate_dir.ts";
import { estateServer } from "../lib/cli/serve.ts";
import { exampleBank } from "../examples/bank_system.ts";
import { STATELESS_META } from "../mod.ts";
const estate = EstateDir.open(new URL("../corpus", import.meta.url).pathname);
const server = estateServer(estate, {
  system: exampleBank({ registry: estate.registry }),
  log: () => {},
  recordCalls: false,
});
const principal = {
  id: "wholesale-operator",
  scopes: ["payments:read", "payments:release", "fx:quote", "policy:read"],
  tenant: "wholesale",
  clearance: "restricted" as const,
};
const args = (i: number) => ({ sell: "EUR", buy: "USD", amount: 1000 + i % 997 });
for (let i = 0; i < 300000; i++) {
  const r = await server.handleStateless({
    jsonrpc: "2.0",
    id: i + 1,
    method: "tools/call",
    params: {
      name: "fx.quote",
      arguments: args(i),
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: {},
      },
    },
  }, { principal }) as any;
  if (!r.result) throw new Error(JSON.stringify(r));
}
server.close();
