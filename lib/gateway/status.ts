/**
 * Where the gateway stands, per upstream server and per tool — what `estate servers`, `estate
 * drift` and the editor show: {@linkcode ServerStatus} and {@linkcode ToolStatus}.
 *
 * @module
 */
import type { IdentityEvidence } from "./upstream.ts";

/**
 * A server's circuit breaker: `closed` (calls go through), `open` (after consecutive failures,
 * calls fail at once for a cool-down), `half-open` (the cool-down passed: one probe call goes
 * through; an answer closes the circuit, a failure opens it again).
 */
export type CircuitState = "closed" | "open" | "half-open";

/**
 * A server's connection: not tried yet (`idle`), being opened, open, lost (`disconnected`, opened
 * again on the next call), failed (`unreachable`), refused by its identity check, or `closed`
 * with the gateway.
 */
export type ConnectionState =
  | "idle"
  | "connecting"
  | "connected"
  | "disconnected"
  | "unreachable"
  | "refused"
  | "closed";

/**
 * A tool's state: `ok`; `quarantined` (its live contract left the registered one: calls are still
 * validated against the registered contract and forwarded); `unavailable` (its server is not
 * connected, refused, circuit-broken, or does not list it: calls get an `isError` result); or
 * `dropped` (listed by a server whose record does not allow it: nothing of it reaches anyone).
 */
export type ToolState = "ok" | "quarantined" | "unavailable" | "dropped";

/** One tool of a server. */
export interface ToolStatus {
  /** The estate's name (for a dropped tool: the name the server listed). */
  tool: string;
  /** Its state. */
  state: ToolState;
  /** The name on the upstream server. */
  upstreamName: string;
  /** The registered version it is held to (none when the estate has no active version). */
  version?: string;
  /** SHA-256 (hex) of the server's current listing entry for it, when listed. */
  definitionSha256?: string;
  /** Why it is not `ok`, one sentence each. */
  reasons: string[];
}

/** One upstream server. */
export interface ServerStatus {
  /** The record's id. */
  id: string;
  /** The record's owner. */
  owner: string;
  /** The connection. */
  connection: ConnectionState;
  /** The circuit breaker. */
  circuit: CircuitState;
  /** What its identity check found (verified when connected; the evidence when refused). */
  identity?: IdentityEvidence;
  /** The last failure, when there was one. */
  error?: string;
  /** The tools its record allows, then those it listed and was not allowed (dropped). */
  tools: ToolStatus[];
}
