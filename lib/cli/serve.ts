/**
 * `estate serve`: the example estate as a live MCP server, over Streamable HTTP (`--http HOST:PORT`,
 * default 127.0.0.1:3000, bearer tokens from `principals.json`) or stdio (`--stdio --principal ID`,
 * since stdio carries no credential). Handlers run over the system of record the caller gives
 * (`cli.ts` gives the example bank of `examples/bank_system.ts`). Changes written to the estate
 * folder by other processes (`estate publish`, `deprecate`, `retire`) reach connected clients as
 * `notifications/tools/list_changed`.
 *
 * @module
 */
import path from "node:path";
import process from "node:process";
import {
  type CallRecord,
  McpServer,
  type McpServerOptions,
  pendingCallHandlers,
  type ProbeRecord,
  type ToolRegistry,
} from "../../mod.ts";
import type { EstateStore, StoreChange } from "../store/mod.ts";
import { serveStdio } from "../mcp/transports/stdio.ts";
import { HTTP_LIMITS } from "../mcp/transports/http_limits.ts";
import { maxMessageBytes as checkedMaxMessageBytes } from "../mcp/transports/message_limit.ts";
import { type Args, parseArgs, UsageError } from "./_args.ts";
import { type OpenedStore, openStore, STORE_FLAGS } from "./_open_store.ts";
import { CallRecorder } from "./_call_recorder.ts";
import { OIDC_FLAGS, type OidcSettings, oidcSettings } from "./_auth_config.ts";
import { principalOnly, type PrincipalWatch } from "./_principal_watch.ts";
import { type ServedGateway, startGateway } from "./_serve_gateway.ts";
import type { CliIO } from "./_cli_io.ts";
import { deprecationText } from "../estate/deprecation.ts";
import { CallLimiter } from "../estate/limits.ts";
import { pendingDesk } from "./_pending_desk.ts";
import { REQUEST_STATE_KEY_ENV, requestStateKeys } from "./_request_state_keys.ts";

const USAGE =
  "usage: estate serve [--http HOST:PORT (default 127.0.0.1:3000) | --stdio --principal ID] [--estate DIR] [--record-calls] [--no-console] [--tls-cert FILE --tls-key FILE --tls-ca FILE] [--auth tokens | --auth oidc --issuer URL [--resource URL] [--audience A,B] [--scopes 'S T'] [--principal-claim C] [--tenant-claim C] [--clearance-claim C] [--auth-config FILE]]";

const L = HTTP_LIMITS;
const T = `${L.requestTimeoutMs / 1000} s`;
const MIB = `${L.maxBodyBytes / 1024 / 1024} MiB`;
const IDLE = `${L.sessionIdleMs / 60_000} min`;

/** `estate serve --help`: the usage, what is followed while serving, and the limits over HTTP. */
export const SERVE_HELP = `${USAGE}

Serves the estate as an MCP server, over Streamable HTTP (both protocol eras; each principal
connects with its bearer token, whose SHA-256 principals.json keeps) or over stdio as one
principal (stdio carries no credential).

options:
  --http HOST:PORT   listen there (default 127.0.0.1:3000; port 0 picks a free one)
  --stdio            serve one client on stdin/stdout instead
  --principal ID     with --stdio: the principal to serve as
  --estate DIR       the estate folder (default: the nearest holding estate.json, as for every
                     command; else ./corpus)
  --record-calls     append each accepted call to the tool's calls.jsonl
  --no-console       do not serve the web console (by default at /console beside /mcp: the
                     estate, each tool's versions, diffs, calls and callers, servers and drift,
                     approvals and the audit trail, for the principal signed in with the same
                     token the MCP endpoint takes; OAuth's authorization code under --auth oidc)
  --tls-cert FILE    the gateway's client certificate (PEM), presented to HTTP upstreams
  --tls-key FILE     its private key (PEM)
  --tls-ca FILE      the estate's trust root (PEM), which issues upstreams' SPIFFE certificates
  --upstream-max-bytes N
                     the largest answer taken from an upstream server (default 16 MiB): past it
                     the answer is not read and the caller is told so
  --help             this text

When the estate records servers it did not write (servers/<id>.json, see estate servers), serve is
also their gateway: their tools are listed and checked like the estate's own, then forwarded over
a connection whose identity was verified (mutual TLS, pinned certificate or pinned binary); what
the gateway observes (identity refusals, dropped tools, drift) is logged here and appended to the
estate's drift.jsonl (see estate drift).

authentication over HTTP (--auth):
  tokens             (the default) each principal's static bearer token, by the SHA-256 that
                     principals.json keeps: the demo
  oidc               OAuth 2.1 access tokens from an authorization server: the server is a
                     protected resource (RFC 9728 metadata at /.well-known/oauth-protected-resource
                     and .../mcp) and accepts only tokens whose signature verifies against the
                     issuer's JWKS (or that introspection calls active), whose iss is the issuer,
                     whose exp/nbf hold (30 s of skew) and whose aud names the resource
  --issuer URL       the authorization server's issuer (its metadata gives jwks_uri)
  --resource URL     this server's resource identifier (default: the URL it serves)
  --audience A,B     further aud values accepted
  --scopes 'S T'     scopes_supported, and the scope a 401 asks for
  --principal-claim C   the claim naming the principal (default sub; client_id for agents)
  --tenant-claim C      the claim carrying the tenant (default: principals.json's record)
  --clearance-claim C   the claim carrying the clearance (default: principals.json's record)
  --auth-config FILE    the same as JSON ({issuer | authorizationServers: [{issuer, jwksUri?,
                     introspection?: {clientId, clientSecretEnv}}], resource, audiences,
                     scopesSupported, claims: {principal, scopes, tenant, clearance}, defaults});
                     flags win. Scopes come from the token; tenant and clearance from its claims,
                     else from the principal's record in principals.json.

While it runs it follows the estate folder: versions published, deprecated or retired by other
processes reach connected clients as list_changed; an edited principals.json takes effect at
once (a revoked or rotated token gets 401 and its sessions and streams end; a principal whose
scopes, tenant or clearance changed gets list_changed where its tools changed; a file that cannot
be read leaves the principals read before in force; with --stdio, the server re-reads its
principal and stops when it is removed).

replicas (several serve processes over one estate, behind one address): a 2026-07-28 call that
asks its client first (a confirmation) answers with a sealed requestState the retry brings back;
give every replica the same key, from the environment, so any replica opens it:
  ESTATE_REQUEST_STATE_KEY            base64 of 32 random bytes or more (openssl rand -base64 32)
  ESTATE_REQUEST_STATE_PREVIOUS_KEYS  earlier keys, comma-separated, that still open the states
                     they sealed while a rotation runs (keep one for requestStateTtlMs, 10 min)
Without them each process draws its own key, and a retry must reach the replica that asked.

limits over HTTP (serveHttp options; each refusal names the limit it hit):
  sessions           ${L.maxSessions} open at once (maxSessions), 503 past it; ${L.maxSessionsPerPrincipal} per principal
                     (maxSessionsPerPrincipal): one more ends that principal's session idle
                     longest (no request in flight, no GET stream), 503 when none is idle
  idle sessions      end after ${IDLE} unused (sessionIdleMs)
  connections        ${L.maxConnections} at once (maxConnections), ${L.maxConnectionsPerAddress} from one address
                     (maxConnectionsPerAddress): one more is answered 503 and closed at once
  request headers    complete within ${T} of the connection (or of the previous response),
                     however steadily they trickle in (headersTimeoutMs): 408, closed
  request bodies     at most ${MIB} (maxBodyBytes, 413), within ${T} (requestTimeoutMs, 408)
  idle connections   closed after ${T} (requestTimeoutMs)
`;

/**
 * What `estate serve` runs an estate's tools over: a system of record's handler per tool version,
 * with the resources, prompts, name and instructions its server offers.
 */
export type ServedSystem = Pick<
  McpServerOptions,
  "handlerFor" | "resources" | "prompts" | "serverInfo" | "instructions"
>;

/** Options for {@linkcode estateServer}. */
export interface EstateServerOptions {
  /** The system the tools run over. */
  system: ServedSystem;
  /** Where the call log goes, a line at a time. */
  log: (line: string) => void;
  /** Append each call whose arguments were accepted to the tool's `calls.jsonl`. */
  recordCalls: boolean;
  /** Where recorded calls go instead of straight to the store (a database store's queue). */
  recorder?: CallRecorder;
  /**
   * The keys that seal 2026-07-28 `requestState`s, newest first (`ESTATE_REQUEST_STATE_KEY`,
   * `ESTATE_REQUEST_STATE_PREVIOUS_KEYS`): replicas given the same answer each other's retries.
   * Default: a key drawn for this server.
   */
  requestStateKeys?: Uint8Array[];
  /** The server's clock (call records' times, hence the days of the deprecation log). */
  now?: () => number;
}

/** Options for {@linkcode runServe}. */
export interface RunServeOptions {
  /**
   * Makes the system the server runs over (its state is that server's), given the estate it
   * serves.
   */
  system: (estate: { registry: ToolRegistry }) => ServedSystem;
}

/** The outcomes of calls that do not join the stored calls (see `estateServer`). */
const NOT_STORED: ReadonlySet<CallRecord["outcome"]> = new Set([
  "held",
  "invalid-arguments",
  "input-required",
  "insufficient-scope",
  "rate-limited",
  "replayed",
  "key-refused",
]);

/** Whether a caller is told of a deprecation today for the first time (one log line a day). */
function toldOncePerDay(): (day: string, who: string) => boolean {
  let today = "";
  let seen = new Set<string>();
  return (day, who) => {
    if (day !== today) [today, seen] = [day, new Set()];
    if (seen.has(who)) return false;
    seen.add(who);
    return true;
  };
}

/**
 * Builds the server for an estate: the system's handlers, resources and prompts, and the call log
 * — every call (`call PRINCIPAL TOOL@VERSION OUTCOME N ms`, with the user's confirmation when the
 * estate asked for one), once a day for each caller of a deprecated version what it was told
 * (`told PRINCIPAL: TOOL@VERSION is deprecated (…); it stops working after …; use …`), and every
 * probe for a hidden or nonexistent name (`probe PRINCIPAL METHOD NAME (hidden|nonexistent)`),
 * neither of which the client can tell apart.
 */
export function estateServer(
  estate: EstateStore,
  options: EstateServerOptions,
): McpServer {
  const told = toldOncePerDay();
  // The approver's tools (approvals.pending, approvals.decide), when the estate publishes them;
  // a decision made through them is acted on at once.
  let server: McpServer | undefined;
  const approverTools = pendingCallHandlers(
    pendingDesk(estate, options.now ?? Date.now),
    () => void server?.sweepPendingCalls(),
  );
  return server = new McpServer({
    registry: estate.registry,
    ...options.system,
    handlerFor: (spec) => approverTools(spec) ?? options.system.handlerFor(spec),
    // Calls the estate's callApprovals hold wait in the store; every replica runs approved ones.
    callApprovals: {
      rules: () => estate.settings().callApprovals ?? [],
      pendingCalls: estate.pendingCalls(),
      onError: (e) => options.log(`pending calls: ${(e as Error).message}`),
    },
    ...(options.now ? { now: options.now } : {}),
    ...(options.requestStateKeys ? { requestStateKey: options.requestStateKeys } : {}),
    // A requestState is used once across every process serving this estate.
    spentStates: { claim: (nonce, expires) => estate.claimRequestState(nonce, expires) },
    // How long idempotency keys are kept: the settings' as last taken in, read per call.
    get idempotencyTtlMs(): number | undefined {
      const hours = estate.settings().idempotencyKeyTtlHours;
      return hours === undefined ? undefined : hours * 3_600_000;
    },
    // The limits in force are the settings' as last taken in; every replica counts in the store.
    limiter: new CallLimiter(() => estate.settings().limits ?? [], {
      take: (takes, now) => estate.takeQuota(takes, now),
    }),
    // Tasks live in the estate's store: any process serving this estate answers for them.
    tasks: { store: estate.tasks() },
    // A tools/call's idempotency key holds across every process serving this estate.
    idempotency: {
      claim: (claim) => estate.claimIdempotencyKey(claim),
      finish: (ref, outcome) => estate.finishIdempotencyKey(ref, outcome),
      release: (ref) => estate.releaseIdempotencyKey(ref),
      read: (ref, now) => estate.readIdempotencyKey(ref, now),
    },
    onCall: (r: CallRecord) => {
      const confirmed = r.confirmation
        ? ` (confirmation: ${r.confirmation.action} by ${r.confirmation.by} at ${r.confirmation.at})`
        : "";
      options.log(
        `call ${r.principal} ${r.tool}@${r.version} ${r.outcome} ${r.durationMs} ms${confirmed}`,
      );
      if (r.deprecation && told(r.at.slice(0, 10), `${r.principal} ${r.tool}@${r.version}`)) {
        options.log(`told ${r.principal}: ${deprecationText(r.deprecation)}`);
      }
      // Only calls whose arguments were accepted join the stored calls that replay checks; a
      // 2026-07-28 round that asked the client for input is stored once, when the retry ends; a
      // call refused for want of an action scope, or beyond a call limit, never ran; a repeat of
      // an idempotency key is the first call's, answered again (or refused), not a call of its own.
      if (options.recordCalls && !NOT_STORED.has(r.outcome)) {
        const call = {
          version: r.version,
          arguments: r.arguments,
          principal: r.principal,
          at: r.at,
        };
        if (options.recorder) return options.recorder.record(r.tool, call);
        const failed = (e: unknown) =>
          options.log(`could not record the call: ${(e as Error).message}`);
        try {
          // The folder store appends at once; a database store's promise is watched for failure.
          const written = estate.appendCalls(r.tool, [call]);
          if (written instanceof Promise) written.catch(failed);
        } catch (e) {
          failed(e);
        }
      }
    },
    // Every call decision and confirmation joins the estate's audit log (redacted by the server).
    audit: {
      append: (event) => {
        const failed = (e: unknown) =>
          options.log(`could not append to the audit log: ${(e as Error).message}`);
        try {
          // The folder store appends at once; a database store's promise is watched for failure.
          const written = estate.appendAudit([event]);
          if (written instanceof Promise) written.catch(failed);
        } catch (e) {
          failed(e);
        }
      },
      settings: () => estate.settings().audit,
    },
    // Probes are logged, never stored as calls: they reached no version.
    onProbe: (p: ProbeRecord) => {
      // The name is the client's: quoted unless plain, so it cannot forge a log line.
      const shown = (v: string) => /^[\x21-\x7e]+$/.test(v) ? v : JSON.stringify(v);
      const pin = p.version === undefined ? "" : `@${shown(p.version)}`;
      options.log(
        `probe ${p.principal} ${p.method} ${shown(p.name)}${pin} (${
          p.hidden ? "hidden" : "nonexistent"
        })`,
      );
    },
  });
}

/**
 * Follows the store and takes other processes' changes in (debounced): tools, servers, a database
 * estate's settings, and principals (a set that cannot be read leaves the principals read before
 * in force). A folder store hears of its files; a database store hears every writer through
 * `LISTEN/NOTIFY`, and after a lost connection reloads what it may have missed and says so.
 */
async function watchEstate(
  estate: EstateStore,
  log: (line: string) => void,
  principals: PrincipalWatch,
  debounceMs: number,
): Promise<() => Promise<void>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending = new Set<StoreChange["kind"]>();
  let running: Promise<void> = Promise.resolve();
  const refresh = async (kinds: Set<StoreChange["kind"]>) => {
    const all = kinds.has("unknown");
    if (all || kinds.has("principals")) {
      try {
        if (await estate.refreshPrincipals()) principals.changed();
      } catch (e) {
        log(
          `the principals changed but could not be read; the ${estate.principals().length} principals read before stay in force: ${
            (e as Error).message
          }`,
        );
      }
    }
    if (
      all || kinds.has("tools") || kinds.has("servers") || kinds.has("settings")
    ) {
      try {
        await estate.refresh();
      } catch (e) {
        log(
          `the estate changed but could not be read: ${(e as Error).message}`,
        );
      }
    }
  };
  const heard = (change: StoreChange) => {
    pending.add(change.kind);
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      const kinds = pending;
      pending = new Set();
      // One refresh at a time, in the order heard.
      running = running.then(() => refresh(kinds));
    }, debounceMs);
  };
  let watch: { close(): unknown } | undefined;
  try {
    watch = await estate.watch((change) => {
      if (change.reconnected) {
        log(
          "the estate's change feed reconnected: reloading what may have been missed",
        );
      }
      heard(change);
    });
  } catch (e) {
    log(`not following the estate's changes: ${(e as Error).message}`);
  }
  return async () => {
    await watch?.close();
    if (timer !== undefined) clearTimeout(timer);
    await running;
  };
}

/**
 * Runs `estate serve`.
 *
 * @param argv The arguments after `serve`.
 * @param io Where to write (stdout is the protocol channel for `--stdio`: only stderr is used).
 * @param options The system the tools run over.
 * @returns The exit code, when the server stops.
 */
export async function runServe(
  argv: string[],
  io: CliIO,
  options: RunServeOptions,
): Promise<number> {
  let args: Args;
  let oidc: OidcSettings | undefined;
  let stateKeys: Uint8Array[] | undefined;
  try {
    args = parseArgs(argv, {
      values: [
        ...STORE_FLAGS,
        "principal",
        "http",
        "tls-cert",
        "tls-key",
        "tls-ca",
        "upstream-max-bytes",
        ...OIDC_FLAGS,
      ],
      booleans: ["stdio", "record-calls", "no-console", "help"],
    });
    if (args.flags.has("help")) {
      io.stdout(SERVE_HELP);
      return 0;
    }
    if (
      args.positionals.length ||
      (args.flags.has("stdio") && args.flags.has("http"))
    ) {
      throw new UsageError(USAGE);
    }
    const auth = args.flags.get("auth") ?? "tokens";
    if (auth !== "tokens" && auth !== "oidc") {
      throw new UsageError(
        `--auth takes tokens or oidc, not ${JSON.stringify(auth)}`,
      );
    }
    if (auth === "oidc" && args.flags.has("stdio")) {
      throw new UsageError(
        "--auth oidc is for HTTP: stdio carries no credential (use --principal)",
      );
    }
    const given = args.flags;
    const stray = OIDC_FLAGS.find((f) => f !== "auth" && given.has(f));
    if (auth === "tokens" && stray) {
      throw new UsageError(`--${stray} needs --auth oidc`);
    }
    oidc = auth === "oidc" ? oidcSettings(args.flags, io.cwd) : undefined;
    stateKeys = requestStateKeys(process.env);
  } catch (e) {
    io.stderr(`estate: ${(e as Error).message}\n`);
    return 2;
  }
  const log = (line: string) => io.stderr(`[estate serve] ${line}\n`);
  let opened: OpenedStore;
  try {
    opened = await openStore(args.flags, { cwd: io.cwd, note: log });
  } catch (e) {
    io.stderr(`estate: ${(e as Error).message}\n`);
    return 2;
  }
  const { store: estate, where } = opened;
  const recorder = opened.database && args.flags.has("record-calls")
    ? new CallRecorder(estate, { log })
    : undefined;
  try {
    return await serveStore(estate, {
      where,
      database: opened.database,
      args,
      io,
      options,
      oidc,
      log,
      recorder,
      stateKeys,
    });
  } finally {
    await recorder?.close();
    await estate.close();
  }
}

/** `estate serve` over an opened store, until it stops. */
async function serveStore(
  estate: EstateStore,
  context: {
    where: string;
    database: boolean;
    args: Args;
    io: CliIO;
    options: RunServeOptions;
    oidc: OidcSettings | undefined;
    log: (line: string) => void;
    recorder: CallRecorder | undefined;
    stateKeys: Uint8Array[] | undefined;
  },
): Promise<number> {
  const { where, database, args, io, options, oidc, log, recorder, stateKeys } = context;
  let gateway: ServedGateway | undefined;
  try {
    const flag = (name: string) => {
      const v = args.flags.get(name);
      return typeof v === "string" ? path.resolve(io.cwd, v) : undefined;
    };
    const cap = args.flags.get("upstream-max-bytes");
    let maxMessageBytes: number | undefined;
    if (cap !== undefined) {
      try {
        // The transports' own rule for the cap, said in the flag's words.
        maxMessageBytes = checkedMaxMessageBytes(Number(cap), "--upstream-max-bytes");
      } catch {
        throw new Error(
          `--upstream-max-bytes takes a whole number of bytes, 1 or more, got ${
            JSON.stringify(cap)
          }`,
        );
      }
    }
    gateway = startGateway(estate, {
      tls: { cert: flag("tls-cert"), key: flag("tls-key"), ca: flag("tls-ca") },
      log,
      ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
    });
  } catch (e) {
    io.stderr(`estate: ${(e as Error).message}\n`);
    return 2;
  }
  const system = options.system({ registry: estate.registry });
  const server = estateServer(estate, {
    system: gateway
      ? {
        ...system,
        handlerFor: (spec) => gateway!.handlerFor(spec) ?? system.handlerFor(spec),
      }
      : system,
    log,
    recordCalls: args.flags.has("record-calls"),
    recorder,
    requestStateKeys: stateKeys,
  });
  if (stateKeys) {
    log(
      `requestState sealed with ${REQUEST_STATE_KEY_ENV}${
        stateKeys.length > 1 ? ` (${stateKeys.length - 1} earlier key(s) still open)` : ""
      }`,
    );
  }
  const principals: PrincipalWatch = { changed: () => {} };
  // A folder hears a burst of file events per write: 150 ms gathers them. A database announces
  // each change once, at its commit: 10 ms gathers a burst of publishes.
  const unwatch = await watchEstate(
    estate,
    log,
    principals,
    database ? 10 : 150,
  );
  try {
    if (args.flags.has("stdio")) {
      const id = args.flags.get("principal");
      const principal = typeof id === "string" ? estate.principal(id) : undefined;
      if (!principal) {
        io.stderr(
          `estate: --stdio needs --principal with one of: ${
            estate.principals().map((p) => p.id).join(", ")
          }\n`,
        );
        return 2;
      }
      log(`serving ${where} over stdio as ${principal.id}`);
      // stdio carries no credential: the principal is re-read from principals.json when it
      // changes, and the server stops when the principal is no longer there.
      const removed = new AbortController();
      principals.changed = () => {
        const now = estate.principal(principal.id);
        if (!now) {
          log(
            `principal ${principal.id} is no longer in principals.json: stopping`,
          );
          removed.abort();
          return;
        }
        server.updatePrincipal(principalOnly(now));
        log(`principals.json changed: serving ${principal.id} as it is now`);
      };
      await serveStdio(server, {
        principal: principalOnly(principal),
        input: process.stdin,
        output: process.stdout,
        signal: removed.signal,
      });
      if (removed.signal.aborted) {
        // Stop reading stdin (paused first: Deno keeps a flowing stdin's read going otherwise).
        process.stdin.pause();
        process.stdin.destroy();
        return 1;
      }
      return 0;
    }
    const { serveHttpFromCli } = await import("./serve_http.ts");
    return await serveHttpFromCli(server, {
      estate,
      where,
      listen: String(args.flags.get("http") ?? "127.0.0.1:3000"),
      io,
      log,
      principals,
      oidc,
      console: !args.flags.has("no-console"),
      ...(gateway ? { gateway: () => gateway!.status() } : {}),
    });
  } finally {
    await unwatch();
    server.close();
    await gateway?.close();
  }
}
