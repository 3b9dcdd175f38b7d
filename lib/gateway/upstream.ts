/**
 * How the gateway reaches an upstream MCP server: an {@linkcode UpstreamConnector} opens a
 * transport to the server a {@linkcode ServerRecord} describes and proves, before anything is
 * exchanged, that the server is the one recorded ({@linkcode IdentityEvidence}); when it is not, it
 * throws {@linkcode IdentityRefusedError} with the evidence. The gateway (`gateway.ts`) runs the
 * MCP client over the transport; the identity checks (mutual TLS, pinned certificates, pinned
 * binaries) live in `identity.ts`, at the edge.
 *
 * @module
 */
import type { Transport } from "../jsonrpc/transport.ts";
import type { ServerRecord } from "../estate/server_record.ts";

/** What was checked of an upstream's identity, and what was found. */
export interface IdentityEvidence {
  /** The server record's id. */
  server: string;
  /**
   * What was checked: a certificate's URI SAN (`spiffe`), a pinned certificate (`certificate`), or
   * a pinned program (`binary`).
   */
  check: "spiffe" | "certificate" | "binary";
  /** What the record requires (a SPIFFE id, or a SHA-256). */
  expected: string;
  /** What was presented (the SANs, the certificate's SHA-256, the program's path and SHA-256). */
  observed: string;
}

/** An upstream that is not the server its record describes: nothing of it is used. */
export class IdentityRefusedError extends Error {
  /** What was checked and found. */
  readonly evidence: IdentityEvidence;

  /**
   * Makes the error.
   *
   * @param evidence What was checked and found.
   * @param message What failed, naming the server.
   */
  constructor(evidence: IdentityEvidence, message: string) {
    super(message);
    this.name = "IdentityRefusedError";
    this.evidence = evidence;
  }
}

/** A transport to an upstream whose identity was verified. */
export interface VerifiedTransport {
  /** The transport (the gateway's MCP client runs over it). */
  transport: Transport;
  /** What was verified. */
  identity: IdentityEvidence;
}

/**
 * Opens a transport to the server a record describes, verifying its identity first.
 *
 * @throws {IdentityRefusedError} When the server is not the one recorded.
 * @throws {Error} When it cannot be reached.
 */
export type UpstreamConnector = (
  record: ServerRecord,
) => Promise<VerifiedTransport>;
