/**
 * `estate serve` as a gateway: when the estate records servers it did not write
 * (`servers/<id>.json`), their tools are served through a {@linkcode Gateway} — each call checked
 * like a local one, then forwarded over a verified connection the gateway owns — and what the
 * gateway observes goes to the operations log (stderr) and, for the tool's owner, to the estate's
 * `drift.jsonl` (read by `estate drift`, `estate servers` and the editor).
 *
 * @module
 */
import { maxBump } from "../compat/schema_change.ts";
import fs from "node:fs";
import type { ToolHandler, ToolSpec } from "../../mod.ts";
import { Gateway } from "../gateway/gateway.ts";
import type { DriftEvent, GatewayLogEntry } from "../gateway/gateway_log.ts";
import type { ServerStatus } from "../gateway/status.ts";
import { connectUpstreams, type GatewayTls } from "../gateway/identity.ts";
import { poisoningSignals } from "../estate/poisoning.ts";
import type { DriftRecord } from "../estate/drift.ts";
import type { EstateStore } from "../store/mod.ts";

/** Where the gateway's TLS material comes from (`--tls-cert`, `--tls-key`, `--tls-ca`). */
export interface GatewayTlsFiles {
  /** The gateway's client certificate (PEM). */
  cert?: string;
  /** Its private key (PEM). */
  key?: string;
  /** The estate's trust root (PEM). */
  ca?: string;
}

/** A running gateway for `estate serve`. */
export interface ServedGateway {
  /** The handler for an upstream tool's version; undefined for a tool no server serves. */
  handlerFor(spec: ToolSpec): ToolHandler | undefined;
  /** Each upstream server as the gateway finds it now (connection, circuit, identity, tools). */
  status(): ServerStatus[];
  /** Stops it: connections closed, timers cleared. */
  close(): Promise<void>;
}

/** A drift event as the estate's drift log keeps it. */
export function driftRecordOf(event: DriftEvent): DriftRecord {
  const record: DriftRecord = {
    at: event.at,
    server: event.server,
    tool: event.tool,
    registeredVersion: event.version,
    kind: event.kind,
    details: event.message,
    evidence: {
      upstreamName: event.upstreamName,
      liveSha256: event.liveSha256,
      ...(event.input ? { input: event.input } : {}),
      ...(event.output ? { output: event.output } : {}),
      ...(event.annotations ? { annotations: event.annotations } : {}),
      ...(event.text ? { text: event.text } : {}),
      ...(event.reasons ? { reasons: event.reasons } : {}),
    },
  };
  // The change needs what its larger part needs: a patch to the input and a major change to the
  // output is major.
  const bumps = [event.input?.bump, event.output?.bump].filter((b) => b !== undefined);
  if (bumps.length) record.bump = bumps.reduce(maxBump);
  return record;
}

/** The log entries the tool's owner must hear of too, as drift records; undefined for the rest. */
export function driftRecordOfLog(
  entry: GatewayLogEntry,
): DriftRecord | undefined {
  switch (entry.kind) {
    case "refused":
      return {
        at: entry.at,
        server: entry.server,
        kind: "refused-identity",
        details: entry.message,
        evidence: { ...entry.evidence },
      };
    case "dropped":
      return {
        at: entry.at,
        server: entry.server,
        tool: entry.tool,
        kind: "dropped-tool",
        details: `${entry.server} offered ${entry.tool}: ${entry.reason}`,
        evidence: {
          definitionSha256: entry.definitionSha256,
          identity: { ...entry.identity },
        },
      };
    case "unreachable":
      return {
        at: entry.at,
        server: entry.server,
        kind: "unavailable",
        details: entry.message,
      };
    case "missing":
      return {
        at: entry.at,
        server: entry.server,
        tool: entry.tool,
        kind: "unavailable",
        details: `${entry.server} no longer lists ${entry.tool}: calls to it answer unavailable`,
      };
    case "restored":
      return {
        at: entry.at,
        server: entry.server,
        tool: entry.tool,
        kind: "cleared",
        details: `${entry.server} lists ${entry.tool} again`,
      };
    default:
      return undefined;
  }
}

/** One line of the operations log for a gateway entry (no evidence beyond what names the cause). */
export function gatewayLogLine(entry: GatewayLogEntry): string {
  const at = `gateway ${entry.server}`;
  switch (entry.kind) {
    case "connected":
      return `${at}: connected (${entry.identity.check} ${entry.identity.expected} verified), ${entry.tools} tools, ${entry.dropped} dropped`;
    case "refused":
      return `${at}: REFUSED — ${entry.message} (expected ${entry.evidence.expected}, presented ${entry.evidence.observed}); retry in ${entry.retryInMs} ms`;
    case "unreachable":
      return `${at}: unreachable — ${entry.message}; retry in ${entry.retryInMs} ms`;
    case "disconnected":
      return `${at}: disconnected`;
    case "dropped":
      return `${at}: dropped tool ${
        JSON.stringify(entry.tool)
      } (${entry.reason}; listing sha256 ${entry.definitionSha256})`;
    case "missing":
      return `${at}: ${entry.tool} is registered for this server but not in its listing: unavailable`;
    case "restored":
      return `${at}: ${entry.tool} is in its listing again`;
    case "relist-failed":
      return `${at}: re-list failed (${entry.message}); keeping the previous listing`;
    case "timeout":
      return `${at}: ${entry.tool}@${entry.version} got no answer within ${entry.timeoutMs} ms (cancelled)`;
    case "call-failed":
      return `${at}: ${entry.tool}@${entry.version} failed: ${entry.message}`;
    case "output-violation":
      return `${at}: ${entry.tool}@${entry.version} returned structuredContent outside its registered outputSchema: ${
        entry.issues.map((i) => `${i.path} ${i.message}`).join("; ")
      }${entry.omitted ? ` (+${entry.omitted} more)` : ""}`;
    case "circuit":
      return `${at}: circuit ${entry.state} after ${entry.failures} failures`;
  }
}

/**
 * Starts the gateway for an estate that records servers; undefined when it records none.
 *
 * @param estate The estate.
 * @param options The TLS files and the log.
 * @returns The running gateway, or undefined.
 * @throws {Error} When a TLS file cannot be read, or only some are given.
 */
export function startGateway(
  estate: EstateStore,
  options: {
    tls: GatewayTlsFiles;
    log: (line: string) => void;
    /** The largest answer taken from an upstream (`--upstream-max-bytes`). Default 16 MiB. */
    maxMessageBytes?: number;
  },
): ServedGateway | undefined {
  const registry = estate.registry;
  if (registry.servers().length === 0) return undefined;
  const { log } = options;
  const read = (file: string | undefined, what: string): string | undefined => {
    if (file === undefined) return undefined;
    try {
      return fs.readFileSync(file, "utf8");
    } catch (e) {
      throw new Error(
        `cannot read the gateway's ${what} ${file}: ${(e as Error).message}`,
      );
    }
  };
  const cert = read(options.tls.cert, "certificate (--tls-cert)");
  const key = read(options.tls.key, "key (--tls-key)");
  const ca = read(options.tls.ca, "trust root (--tls-ca)");
  const given = [cert, key, ca].filter((x) => x !== undefined).length;
  if (given !== 0 && given !== 3) {
    throw new Error(
      "the gateway's TLS needs all of --tls-cert, --tls-key and --tls-ca",
    );
  }
  const tls: GatewayTls | undefined = cert && key && ca ? { cert, key, ca } : undefined;
  const drift = (record: DriftRecord): void => {
    const failed = (e: unknown) =>
      log(`could not append to the drift log: ${(e as Error).message}`);
    try {
      // The folder store writes at once; a database store's promise is watched for failure.
      const written = estate.appendDrift([record]);
      if (written instanceof Promise) written.catch(failed);
    } catch (e) {
      failed(e);
    }
  };
  const gateway = new Gateway({
    registry,
    serverFor: (name) => registry.serverFor(name),
    servers: () => registry.servers(),
    connector: connectUpstreams({
      ...(tls ? { tls } : {}),
      stderr: "ignore",
      ...(options.maxMessageBytes === undefined
        ? {}
        : { maxMessageBytes: options.maxMessageBytes }),
    }),
    descriptionSignals: (text) =>
      poisoningSignals(text).map((s) => ({
        code: s.code,
        message: `${s.code}: ${s.excerpt}`,
      })),
    onDrift: (event) => {
      log(
        `drift ${event.server} ${event.tool}@${event.version}: ${event.kind} — ${event.message}`,
      );
      drift(driftRecordOf(event));
    },
    onLog: (entry) => {
      log(gatewayLogLine(entry));
      const record = driftRecordOfLog(entry);
      if (record) drift(record);
    },
  });
  log(
    `gateway: ${registry.servers().length} upstream server(s): ${
      registry.servers().map((s) => s.id).join(", ")
    }`,
  );
  // Connecting runs in the background: an upstream that is slow or refused must not hold the
  // estate's own tools back; the gateway retries with backoff and logs each attempt.
  gateway.start().catch((e) => log(`gateway: ${(e as Error).message}`));
  return {
    handlerFor: (spec) => gateway.handlerFor(spec),
    status: () => gateway.status(),
    close: () => gateway.close(),
  };
}
