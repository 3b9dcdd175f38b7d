/**
 * What the gateway tells its owner: {@linkcode DriftEvent}s (an upstream's live listing of a tool
 * moved away from the registered version: compatible, a changed text, quarantined, cleared), for
 * the tool's owner and the drift log; and {@linkcode GatewayLogEntry}s, everything else worth a
 * line in the operations log — connections, identity refusals with their evidence, dropped tools
 * with the hash of what was listed, timeouts, output violations, the circuit breaker.
 *
 * @module
 */
import type { SchemaChangeClassification } from "../compat/schema_change.ts";
import type { SchemaIssue } from "../schema/types.ts";
import type { CircuitState } from "./status.ts";
import type { AnnotationChange, TextChange } from "./drift.ts";
import type { IdentityEvidence } from "./upstream.ts";

/**
 * What a drift event says:
 * - `compatible`: the live contract changed within the registered one (logged, nothing else);
 * - `description`: a text the model reads changed — the description, the title, a text inside a
 *   schema — a rug-pull signal, with what the description lint found; principals still read the
 *   registered text;
 * - `quarantined`: the live contract left the registered one (the upstream may reject calls the
 *   registered schema accepts, return values its output schema does not allow, or claim more side
 *   effects); callers keep the registered contract, and the owner must publish a version or get
 *   the upstream fixed;
 * - `cleared`: a quarantined tool is back within the registered contract (the upstream reverted,
 *   or a version was published).
 */
export type DriftEventKind =
  | "compatible"
  | "description"
  | "quarantined"
  | "cleared";

/** One drift event, for the tool's owner (the drift log, the CLI, the editor). */
export interface DriftEvent {
  /** What it says. */
  kind: DriftEventKind;
  /** When it was seen (ISO 8601). */
  at: string;
  /** The server record's id. */
  server: string;
  /** The server's owner. */
  serverOwner: string;
  /** The tool, as the estate names it. */
  tool: string;
  /** The tool's name on the upstream server. */
  upstreamName: string;
  /** The registered version compared against (the newest active one). */
  version: string;
  /** The tool's owner (from the registered version). */
  owner: string;
  /** SHA-256 (hex) of the live listing entry, as canonical JSON. */
  liveSha256: string;
  /** One sentence for a person. */
  message: string;
  /** The input schema change, registered → live, when it changed (`compatible`, `quarantined`, `cleared`). */
  input?: SchemaChangeClassification;
  /** The output schema change, registered → live, when it changed. */
  output?: SchemaChangeClassification;
  /** Hints stated differently from the side-effect class. */
  annotations?: AnnotationChange[];
  /** The texts that changed, with the lint's findings (`description`). */
  text?: TextChange[];
  /** Why the tool is quarantined (`quarantined`). */
  reasons?: string[];
}

/** What every {@linkcode GatewayLogEntry} carries. */
export interface GatewayLogFields {
  /** When (ISO 8601). */
  at: string;
  /** The server record's id. */
  server: string;
}

/** One line of the gateway's operations log. */
export type GatewayLogEntry =
  /** A connection was opened and its identity verified; `tools` were taken, `dropped` refused. */
  | GatewayLogFields & {
    kind: "connected";
    identity: IdentityEvidence;
    tools: number;
    dropped: number;
  }
  /** The upstream is not the server its record describes: nothing of it is used. */
  | GatewayLogFields & {
    kind: "refused";
    evidence: IdentityEvidence;
    message: string;
    retryInMs: number;
  }
  /** It could not be reached (or did not finish connecting in time). */
  | GatewayLogFields & {
    kind: "unreachable";
    message: string;
    retryInMs: number;
  }
  /** An open connection closed. */
  | GatewayLogFields & { kind: "disconnected" }
  /**
   * The server listed a tool its record does not allow (or one another server serves): dropped,
   * with the hash of its listing entry and the identity of the server that listed it.
   */
  | GatewayLogFields & {
    kind: "dropped";
    tool: string;
    definitionSha256: string;
    reason: string;
    identity: IdentityEvidence;
  }
  /** A tool the estate registered for this server is not in its listing: unavailable. */
  | GatewayLogFields & { kind: "missing"; tool: string }
  /** A tool that was missing from the server's listing is listed again. */
  | GatewayLogFields & { kind: "restored"; tool: string }
  /** A re-list failed (the previous listing stays). */
  | GatewayLogFields & { kind: "relist-failed"; message: string }
  /** A forwarded call got no answer in time (the upstream call was cancelled). */
  | GatewayLogFields & {
    kind: "timeout";
    tool: string;
    version: string;
    timeoutMs: number;
  }
  /** A forwarded call failed otherwise: the connection closed, or the answer was unusable. */
  | GatewayLogFields & {
    kind: "call-failed";
    tool: string;
    version: string;
    message: string;
  }
  /** The upstream's `structuredContent` broke the registered `outputSchema`: the first issues. */
  | GatewayLogFields & {
    kind: "output-violation";
    tool: string;
    version: string;
    issues: SchemaIssue[];
    omitted: number;
  }
  /** The circuit breaker moved. */
  | GatewayLogFields & {
    kind: "circuit";
    state: CircuitState;
    failures: number;
  };
