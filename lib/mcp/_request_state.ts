/**
 * The `requestState` of a 2026-07-28 input-required result: what a call learned from its client so
 * far, carried by the client between rounds and trusted by nothing but its seal. As the
 * specification asks of state that influences business logic, it is integrity-protected
 * (HMAC-SHA-256 under the server's key) and bound to the principal, the request (method and name)
 * and a digest of its arguments, with a short expiry; a state that fails any check is refused. A state is spent when a
 * retry presents it and it opens: presented again, anywhere its spent states are shared, it is
 * refused (single use).
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

/**
 * The single use of sealed states: `claim` is true for the first claim of a state's nonce and
 * false for every later one, until the state lapses. The default remembers in memory; replicas
 * that share the sealing key share this too (`estate serve` keeps it in the estate's store).
 */
export interface SpentStates {
  /**
   * Claims a state's single use.
   *
   * @param nonce The state's nonce.
   * @param expires When the state lapses (ms since the epoch): it need not be remembered after.
   * @returns True for the first claim; false when it was claimed before.
   */
  claim(nonce: string, expires: number): boolean | Promise<boolean>;
}

/**
 * Spent states remembered in memory, at most `max` (the oldest claimed forgotten first: at the
 * default TTL of ten minutes, 100,000 is more retries than a server takes in that time).
 */
export function memorySpentStates(max = 100_000): SpentStates {
  const spent = new Set<string>();
  return {
    claim(nonce) {
      if (spent.has(nonce)) return false;
      spent.add(nonce);
      while (spent.size > max) spent.delete(spent.values().next().value!);
      return true;
    },
  };
}

/** Seals and opens request states under one key; claims each state's single use. */
export class RequestStateSeal {
  /** The keys: the first seals, each opens (the others are earlier keys, kept while rotating). */
  readonly #keys: Promise<CryptoKey[]>;
  readonly #spent: SpentStates;

  /**
   * @param secrets The key, or the keys newest first (each 32 random bytes or more): the first
   *   seals, and a state sealed under any of them opens — a rotation keeps the old key here until
   *   the states it sealed have lapsed. Replicas that serve each other's retries share them.
   * @param spent Where each state's single use is claimed. Default: in memory.
   */
  constructor(
    secrets: Uint8Array | readonly Uint8Array[],
    spent: SpentStates = memorySpentStates(),
  ) {
    const list = secrets instanceof Uint8Array ? [secrets] : [...secrets];
    if (list.length === 0) throw new TypeError("a request state seal needs a key");
    this.#keys = Promise.all(list.map((secret) =>
      crypto.subtle.importKey(
        "raw",
        secret as Uint8Array<ArrayBuffer>,
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign", "verify"],
      )
    ));
    this.#spent = spent;
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
      await crypto.subtle.sign("HMAC", (await this.#keys)[0], body),
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
    let ok = false;
    for (const key of await this.#keys) {
      ok ||= await crypto.subtle.verify(
        "HMAC",
        key,
        mac as Uint8Array<ArrayBuffer>,
        body as Uint8Array<ArrayBuffer>,
      );
    }
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
    return state;
  }

  /**
   * Claims an opened state's single use, before the call it carries runs: true once, then false
   * (on this server, and on every server sharing its spent states).
   *
   * @param state The state.
   * @returns Whether this is its first use.
   */
  async claim(state: RequestState): Promise<boolean> {
    return await this.#spent.claim(state.nonce, state.expires);
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
