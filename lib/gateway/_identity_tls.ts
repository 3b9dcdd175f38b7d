/**
 * TLS connections whose peer is checked before anything is sent: {@linkcode openVerified} opens
 * one with the gateway's client certificate and checks the server's certificate against the
 * record (a URI SAN under the estate's trust root, or a pinned DER SHA-256);
 * {@linkcode verifiedFetch} is a `fetch` whose every new connection is opened that way (a
 * `node:https` agent whose `createConnection` hands over a socket only once it passed). A runtime
 * edge: `node:tls`, `node:https`, `node:crypto` (Deno 2 and Node provide them).
 *
 * @module
 */
import { createHash } from "node:crypto";
import https from "node:https";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import type { HttpUpstream } from "../estate/server_record.ts";
import { type IdentityEvidence, IdentityRefusedError } from "./upstream.ts";

/** The gateway's TLS material, PEM. */
export interface TlsMaterial {
  /** The gateway's private key. */
  key: string;
  /** The gateway's client certificate (with its chain, if any). */
  cert: string;
  /** The estate's trust root: the CA (or CAs) that issue upstream certificates. */
  ca: string;
}

/** Where to connect, whom to expect, and how long to wait. */
export interface PeerTarget {
  /** The record's id (for the evidence). */
  server: string;
  /** The host name or IP address (IPv6 without brackets). */
  host: string;
  /** The port. */
  port: number;
  /** The identity the record requires. */
  identity: HttpUpstream["identity"];
  /** The gateway's certificate and the trust root. */
  tls: TlsMaterial;
  /** How long the TCP connection and the TLS handshake may take together. */
  timeoutMs: number;
}

/** What the certificate said, as far as the verdict is concerned. */
interface Presented {
  /** The chain verified against the trust root. */
  authorized: boolean;
  /** Why not, when not. */
  authorizationError: string | undefined;
  /** The subject alternative names, in Node's `subjectaltname` form. */
  subjectAltName: string;
  /** SHA-256 of the DER certificate, lowercase hex. */
  sha256: string;
}

/** The URI SANs of a `subjectaltname` string (`URI:a, DNS:b, IP Address:c`; quoted values too). */
export function uriSans(subjectAltName: string): string[] {
  const uris: string[] = [];
  for (const entry of subjectAltName.split(", ")) {
    if (!entry.startsWith("URI:")) continue;
    let value = entry.slice(4);
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value);
      } catch {
        // not a quoted value after all: compare it as it stands
      }
    }
    uris.push(value);
  }
  return uris;
}

/**
 * The verdict on a presented certificate: the evidence, and the reason it was refused (undefined
 * when it passed). A SPIFFE identity needs a chain to the trust root and exactly one URI SAN,
 * equal to the record's (an X.509-SVID carries exactly one: a certificate naming two services
 * could impersonate either). A pin needs the DER SHA-256 to be equal; chain and names are then
 * not consulted (a self-signed certificate is fine).
 */
function judge(
  server: string,
  identity: HttpUpstream["identity"],
  peer: Presented,
): { evidence: IdentityEvidence; refusal?: string } {
  if ("spiffeId" in identity) {
    const sans = peer.subjectAltName === "" ? "none" : peer.subjectAltName;
    const chain = peer.authorized
      ? "issued by the trust root"
      : `not issued by the trust root (${peer.authorizationError ?? "unverified"})`;
    const evidence: IdentityEvidence = {
      server,
      check: "spiffe",
      expected: identity.spiffeId,
      observed: `SANs: ${sans}; chain: ${chain}; certificate SHA-256: ${peer.sha256}`,
    };
    const uris = uriSans(peer.subjectAltName);
    if (!peer.authorized) {
      return { evidence, refusal: `its certificate is ${chain}` };
    }
    if (uris.length !== 1 || uris[0] !== identity.spiffeId) {
      return {
        evidence,
        refusal: uris.length === 0
          ? "its certificate has no URI SAN"
          : `its certificate's URI SANs are ${uris.join(", ")}, not exactly ${identity.spiffeId}`,
      };
    }
    return { evidence };
  }
  const evidence: IdentityEvidence = {
    server,
    check: "certificate",
    expected: identity.certificateSha256,
    observed: peer.sha256,
  };
  if (peer.sha256 !== identity.certificateSha256.toLowerCase()) {
    return {
      evidence,
      refusal:
        `its certificate's SHA-256 is ${peer.sha256}, not the pinned ${identity.certificateSha256}`,
    };
  }
  return { evidence };
}

/** The verified socket and the evidence. */
export interface VerifiedSocket {
  /** The socket, handshake done, nothing sent. */
  socket: tls.TLSSocket;
  /** What was checked and found. */
  evidence: IdentityEvidence;
}

/**
 * Opens a TLS connection presenting the gateway's certificate and checks the server's before
 * anything is sent. The host name plays no part: the identity is the URI SAN or the pin (Node's
 * host-name check is turned off, chain verification is read from `authorized`).
 *
 * @throws {IdentityRefusedError} When the certificate is not the record's.
 * @throws {Error} When the connection fails or the handshake takes longer than `timeoutMs`.
 */
export function openVerified(target: PeerTarget): Promise<VerifiedSocket> {
  const where = `${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}`;
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: target.host,
      port: target.port,
      ...(isIP(target.host) ? {} : { servername: target.host }),
      key: target.tls.key,
      cert: target.tls.cert,
      ca: target.tls.ca,
      // Read, not enforced: a pinned certificate needs no chain; a SPIFFE one is refused below.
      rejectUnauthorized: false,
      // The host name is no part of the identity.
      checkServerIdentity: () => undefined,
    });
    const fail = (error: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () =>
        fail(
          new Error(
            `Cannot connect to upstream ${target.server} at ${where}: no TLS handshake within ${target.timeoutMs} ms`,
          ),
        ),
      target.timeoutMs,
    );
    socket.once("error", (e: Error) =>
      fail(
        new Error(
          `Cannot connect to upstream ${target.server} at ${where}: ${e.message}`,
          {
            cause: e,
          },
        ),
      ));
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      const cert = socket.getPeerCertificate();
      const raw = cert?.raw;
      if (!raw || raw.length === 0) {
        fail(
          new IdentityRefusedError(
            {
              server: target.server,
              check: "spiffeId" in target.identity ? "spiffe" : "certificate",
              expected: "spiffeId" in target.identity
                ? target.identity.spiffeId
                : target.identity.certificateSha256,
              observed: "no certificate",
            },
            `Upstream ${target.server} at ${where} refused: it presented no certificate`,
          ),
        );
        return;
      }
      const authorizationError = socket.authorizationError;
      const verdict = judge(target.server, target.identity, {
        authorized: socket.authorized,
        authorizationError: authorizationError === null || authorizationError === undefined
          ? undefined
          : String(authorizationError),
        subjectAltName: cert.subjectaltname ?? "",
        sha256: createHash("sha256").update(raw).digest("hex"),
      });
      if (verdict.refusal !== undefined) {
        fail(
          new IdentityRefusedError(
            verdict.evidence,
            `Upstream ${target.server} at ${where} refused: ${verdict.refusal}`,
          ),
        );
        return;
      }
      resolve({ socket, evidence: verdict.evidence });
    });
  });
}

/**
 * An agent whose every new connection is opened by {@linkcode openVerified}: a socket reaches the
 * HTTP layer only once its certificate passed (keep-alive reuses a socket, whose certificate
 * cannot change; TLS 1.3 has no renegotiation).
 */
class VerifyingAgent extends https.Agent {
  readonly #target: PeerTarget;
  readonly #onRefused: (error: IdentityRefusedError) => void;

  constructor(
    target: PeerTarget,
    onRefused: (error: IdentityRefusedError) => void,
  ) {
    super({ keepAlive: true });
    this.#target = target;
    this.#onRefused = onRefused;
  }

  override createConnection(
    _options: unknown,
    callback?: (err: Error | null, socket: Duplex) => void,
  ): Duplex | null | undefined {
    openVerified(this.#target).then(
      ({ socket }) => callback?.(null, socket),
      (e: Error) => {
        if (e instanceof IdentityRefusedError) this.#onRefused(e);
        callback?.(e, undefined as unknown as Duplex);
      },
    );
    return undefined;
  }
}

/** A `fetch` over verified connections, and how to drop its connections. */
export interface VerifiedFetch {
  /** The `fetch`. */
  fetch: typeof fetch;
  /** Closes every connection it holds (idle and busy). */
  destroy(): void;
}

/**
 * A `fetch` for one upstream (requests to other origins are refused) whose connections are
 * opened and checked by {@linkcode openVerified}, each new one. Response bodies stream (SSE), and
 * an abort signal ends the request or its body.
 *
 * @param target The upstream, the identity, the TLS material.
 * @param onRefused Told when a later connection is refused (the server changed its certificate).
 */
export function verifiedFetch(
  target: PeerTarget,
  onRefused: (error: IdentityRefusedError) => void,
): VerifiedFetch {
  const agent = new VerifyingAgent(target, onRefused);
  const fetchVerified = async (
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = Number(url.port || 443);
    if (
      url.protocol !== "https:" || host !== target.host || port !== target.port
    ) {
      throw new TypeError(
        `This fetch reaches upstream ${target.server} only, not ${url.origin}`,
      );
    }
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const signal = request.signal;
    signal.throwIfAborted();
    return await new Promise<Response>((resolve, reject) => {
      let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
      let settled = false;
      const finish = (): void => {
        settled = true;
        signal.removeEventListener("abort", onAbort);
      };
      const onAbort = (): void => {
        req.destroy();
        if (stream && !settled) {
          finish();
          stream.error(signal.reason);
        }
        reject(signal.reason);
      };
      const req = https.request({
        host,
        port,
        path: url.pathname + url.search,
        method: request.method,
        headers: Object.fromEntries(request.headers),
        agent,
      }, (res: IncomingMessage) => {
        const headers = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
        }
        const status = res.statusCode ?? 0;
        if (
          status === 204 || status === 205 || status === 304 ||
          request.method === "HEAD"
        ) {
          res.resume();
          finish();
          resolve(
            new Response(null, {
              status,
              statusText: res.statusMessage,
              headers,
            }),
          );
          return;
        }
        const readable = new ReadableStream<Uint8Array>({
          start(controller) {
            stream = controller;
            res.on("data", (chunk: Uint8Array) => {
              if (settled) return;
              controller.enqueue(new Uint8Array(chunk));
              if ((controller.desiredSize ?? 1) <= 0) res.pause();
            });
            res.once("end", () => {
              if (settled) return;
              finish();
              controller.close();
            });
            res.once("error", (e: Error) => {
              if (settled) return;
              finish();
              controller.error(e);
            });
            res.once("close", () => {
              if (settled) return;
              finish();
              controller.error(
                new Error(`the connection to upstream ${target.server} closed`),
              );
            });
          },
          pull() {
            res.resume();
          },
          cancel() {
            finish();
            req.destroy();
          },
        }, { highWaterMark: 16 });
        resolve(
          new Response(readable, {
            status,
            statusText: res.statusMessage,
            headers,
          }),
        );
      });
      signal.addEventListener("abort", onAbort, { once: true });
      req.once("error", (e: Error) => {
        if (stream && !settled) {
          finish();
          stream.error(e);
        } else finish();
        reject(e);
      });
      req.end(body);
    });
  };
  return {
    fetch: fetchVerified as typeof fetch,
    destroy: () => agent.destroy(),
  };
}
