/**
 * A replica for `idempotency_replicas_pg_test.ts`, run in its own process: an `McpServer` over its
 * own `PgEstateStore`, served over HTTP on 127.0.0.1 (a free port, printed as `listening URL`).
 * Its handler records each run in the table `replica_effects`. `MODE` says where it stops, so the
 * test can SIGKILL it there: `die-after-store` blocks once the outcome is stored and before the
 * answer is sent (printing `stored`); `die-in-handler` blocks inside the handler after its effect
 * (printing `running`), before any outcome is stored.
 *
 * Usage: deno run -A tests/_idempotent_replica.ts URL MODE
 */
import postgres from "postgres";
import { McpServer, type Principal } from "../mod.ts";
import { bearerTokens, serveHttp } from "../lib/mcp/transports/http_mod.ts";
import { PgEstateStore } from "../lib/store/pg/pg_store.ts";

export const REPLICA_PRINCIPAL: Principal & { token: string } = {
  id: "ops",
  scopes: [],
  tenant: "wholesale",
  clearance: "restricted",
  token: "ops-token",
};

if (import.meta.main) {
  const [url, mode] = Deno.args;
  const store = await PgEstateStore.open(url);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const forever = new Promise<never>(() => {});
  const server = new McpServer({
    registry: store.registry,
    handlerFor: () => async (args) => {
      await sql`insert into replica_effects (reference) values (${String(args.reference)})`;
      if (mode === "die-in-handler") {
        console.log("running");
        await forever;
      }
      return { released: args.reference };
    },
    idempotency: {
      claim: (claim) => store.claimIdempotencyKey(claim),
      finish: async (ref, outcome) => {
        const done = await store.finishIdempotencyKey(ref, outcome);
        if (mode === "die-after-store") {
          console.log("stored");
          await forever;
        }
        return done;
      },
      release: (ref) => store.releaseIdempotencyKey(ref),
      read: (ref, now) => store.readIdempotencyKey(ref, now),
    },
  });
  const http = await serveHttp(server, { authenticate: bearerTokens([REPLICA_PRINCIPAL]) });
  console.log(`listening ${http.url}`);
}
