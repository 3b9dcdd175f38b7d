/**
 * The `requestState` of a 2026-07-28 input-required result: what a call learned from its client so
 * far, carried by the client between rounds and trusted by nothing but its seal. As the
 * specification asks of state that influences business logic, it is integrity-protected
 * (HMAC-SHA-256 under the server's key) and bound to the principal, the request (method and name)
 * and a digest of its arguments, with a short expiry; a state that fails any check is refused. A state whose call then
 * ran is spent: presented again, it is refused (single use, per server key holder's memory).
 *
 * @module
 */
import { isObject } from "../_object.ts";

/** What a sealed state carries. */
export interface RequestState {
  /** The principal it was issued to. */
  principal: string;
  /** The request it belongs to: its method and name (`tools/call payments.release`). */
  request: string;
  /** SHA-256 (hex) of the call's canonical arguments. */
  digest: string;
  /** When it lapses (ms since the epoch). */
  expires: number;
  /** The client's answers so far, by input request key. */
  answers: Record<string, unknown>;
  /** The keys of the input requests this state went out with: the only answers a retry adds. */
  asked: string[];
  /** A random id, for single use. */
  nonce: string;
}

const encoder = new TextEncoder();

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromB64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** JSON with object keys sorted, so equal values digest equally. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${
      Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")
    }}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The digest a state binds a call's arguments with.
 *
 * @param args The arguments.
 * @returns SHA-256 of their canonical JSON, hex.
 */
export async function argumentsDigest(args: unknown): Promise<string> {
  const hash = await crypto.subtle.digest(
    "SHA-256",
    encoder.encode(canonical(args)),
  );
  return Array.from(
    new Uint8Array(hash),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** Why a presented state was refused. */
export type StateRefusal =
  | "malformed"
  | "forged"
  | "expired"
  | "other-principal"
  | "other-call"
  | "spent";

/** Seals and opens request states under one key; remembers the spent ones until they lapse. */
export class RequestStateSeal {
  readonly #key: Promise<CryptoKey>;
  readonly #spent = new Map<string, number>();
  readonly #maxSpent: number;

  /**
   * @param secret The key (32 random bytes or more); replicas that serve each other's retries
   *   share it.
   * @param maxSpent How many spent states to remember at most (the oldest are forgotten first).
   */
  constructor(secret: Uint8Array, maxSpent = 100_000) {
    this.#key = crypto.subtle.importKey(
      "raw",
      secret as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    this.#maxSpent = maxSpent;
  }

  /**
   * Seals a state.
   *
   * @param state What it carries.
   * @returns The opaque `requestState` string.
   */
  async seal(state: RequestState): Promise<string> {
    const body = encoder.encode(JSON.stringify(state));
    const mac = new Uint8Array(
      await crypto.subtle.sign("HMAC", await this.#key, body),
    );
    return `${b64url(body)}.${b64url(mac)}`;
  }

  /**
   * Opens a state a client presented, checking its seal, expiry, principal and call.
   *
   * @param text The `requestState` as received.
   * @param expected Who presents it, for which call, and when.
   * @returns The state, or why it was refused.
   */
  async open(
    text: unknown,
    expected: {
      principal: string;
      request: string;
      digest: string;
      now: number;
    },
  ): Promise<RequestState | StateRefusal> {
    if (typeof text !== "string" || text.length > 1_000_000) return "malformed";
    const [bodyText, macText, extra] = text.split(".");
    if (extra !== undefined || macText === undefined) return "malformed";
    const body = fromB64url(bodyText);
    const mac = fromB64url(macText);
    if (!body || !mac) return "malformed";
    const ok = await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      mac as Uint8Array<ArrayBuffer>,
      body as Uint8Array<ArrayBuffer>,
    );
    if (!ok) return "forged";
    let state: RequestState;
    try {
      state = JSON.parse(new TextDecoder().decode(body));
    } catch {
      return "malformed";
    }
    if (
      !isObject(state) || !isObject(state.answers) ||
      !Array.isArray(state.asked)
    ) {
      return "malformed";
    }
    if (state.expires <= expected.now) return "expired";
    if (state.principal !== expected.principal) return "other-principal";
    if (
      state.request !== expected.request || state.digest !== expected.digest
    ) return "other-call";
    this.#prune(expected.now);
    if (this.#spent.has(state.nonce)) return "spent";
    return state;
  }

  /**
   * Marks a state spent: its call ran, and the same state may not run it again.
   *
   * @param state The state.
   */
  spend(state: RequestState): void {
    this.#spent.set(state.nonce, state.expires);
    while (this.#spent.size > this.#maxSpent) {
      this.#spent.delete(this.#spent.keys().next().value!);
    }
  }

  /** Forgets the spent states that lapsed: kept in the order spent, so they lapse from the front. */
  #prune(now: number): void {
    for (const [nonce, expires] of this.#spent) {
      if (expires > now) return;
      this.#spent.delete(nonce);
    }
  }
}

/**
 * A fresh random id.
 *
 * @returns 128 random bits, base64url.
 */
export function randomNonce(): string {
  return b64url(crypto.getRandomValues(new Uint8Array(16)));
}
