/**
 * Checkpoints of the audit log: a record's `seq` and the chain's head hash there, signed with a key
 * the operator holds (Ed25519, Web Crypto). A checkpoint kept beyond the log's reach proves the
 * log held at least that many records with that head: a log cut short, or cut and written again,
 * no longer matches it. The verifier needs only the public key. Keys are files in JWK or PEM
 * (PKCS #8 private, SPKI public); {@linkcode generateAuditKeys} makes a pair. Pure.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { canonicalJson } from "../schema/json_equal.ts";
/**
 * A Web Crypto key (`CryptoKey`, as `crypto.subtle.importKey` makes it), named from the `crypto`
 * global so that the core type-checks without the DOM library (Node's types, the editor's build).
 */
export type AuditKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** The fields of a JSON Web Key an Ed25519 key file has (RFC 8037). */
interface Jwk {
  kty?: string;
  crv?: string;
  x?: string;
  d?: string;
}

/** A signed checkpoint of the audit log. */
export interface AuditCheckpoint {
  /** The record it vouches for: the log held this many records. */
  seq: number;
  /** That record's hash (the chain's head then). */
  head: string;
  /** When it was signed (ISO 8601). */
  at: string;
  /** The Ed25519 signature of {@linkcode checkpointText}, base64url. */
  signature: string;
}

/** What a checkpoint's signature covers (its domain keeps it from meaning anything else). */
const CHECKPOINT_DOMAIN = "tool-estate/audit-checkpoint/v1";

const ED25519 = { name: "Ed25519" } as const;

/**
 * The text a checkpoint's signature covers: the canonical JSON of its `seq`, `head` and `at`, with
 * the domain `tool-estate/audit-checkpoint/v1`.
 *
 * @param checkpoint The checkpoint (its signature is left out).
 * @returns The text.
 */
export function checkpointText(checkpoint: Omit<AuditCheckpoint, "signature">): string {
  return canonicalJson({
    domain: CHECKPOINT_DOMAIN,
    seq: checkpoint.seq,
    head: checkpoint.head,
    at: checkpoint.at,
  });
}

function toBase64Url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/").replace(/\s+/g, ""));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/**
 * Signs a checkpoint of the chain's head.
 *
 * @param head The record to vouch for (`seq`) and its hash.
 * @param options The private key (Ed25519, usage `sign`) and when (default now).
 * @returns The checkpoint.
 */
export async function signAuditCheckpoint(
  head: { seq: number; hash: string },
  options: { privateKey: AuditKey; at?: string },
): Promise<AuditCheckpoint> {
  const unsigned = {
    seq: head.seq,
    head: head.hash,
    at: options.at ?? new Date().toISOString(),
  };
  const signature = await crypto.subtle.sign(
    ED25519,
    options.privateKey,
    new TextEncoder().encode(checkpointText(unsigned)),
  );
  return { ...unsigned, signature: toBase64Url(new Uint8Array(signature)) };
}

/**
 * Whether a checkpoint's signature verifies with a public key.
 *
 * @param checkpoint The checkpoint.
 * @param publicKey The operator's public key (Ed25519, usage `verify`).
 * @returns Whether it verifies (false for a malformed checkpoint).
 */
export async function verifyAuditCheckpoint(
  checkpoint: AuditCheckpoint,
  publicKey: AuditKey,
): Promise<boolean> {
  if (auditCheckpointProblems(checkpoint).length) return false;
  try {
    return await crypto.subtle.verify(
      ED25519,
      publicKey,
      fromBase64(checkpoint.signature),
      new TextEncoder().encode(checkpointText(checkpoint)),
    );
  } catch {
    return false;
  }
}

/**
 * Every problem with a value as a checkpoint; empty for one.
 *
 * @param value The candidate (a parsed line of `audit-checkpoints.jsonl`, a row).
 * @returns One sentence per problem.
 */
export function auditCheckpointProblems(value: unknown): string[] {
  if (!isObject(value)) return ["a checkpoint must be an object"];
  const problems: string[] = [];
  if (!Number.isSafeInteger(value.seq) || (value.seq as number) < 0) {
    problems.push("seq must be an integer of at least 0");
  }
  if (typeof value.head !== "string" || !/^[0-9a-f]{64}$/.test(value.head)) {
    problems.push("head must be 64 lowercase hex digits");
  }
  if (typeof value.at !== "string") problems.push("at must be a string");
  if (typeof value.signature !== "string" || !/^[A-Za-z0-9_-]+$/.test(value.signature)) {
    problems.push("signature must be base64url");
  }
  return problems;
}

/** A PEM block's label and bytes. */
function pem(text: string): { label: string; der: Uint8Array<ArrayBuffer> } | undefined {
  const m = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(text);
  return m ? { label: m[1], der: fromBase64(m[2]) } : undefined;
}

/**
 * Reads an Ed25519 key from a key file's text: a JWK (`{"kty":"OKP","crv":"Ed25519",…}`; with `d`
 * it is private), or PEM (`PRIVATE KEY`: PKCS #8; `PUBLIC KEY`: SPKI). For `verify`, a private
 * key's file gives its public key, so an operator may point the verifier at either.
 *
 * @param text The file's text.
 * @param use `sign` (a private key) or `verify`.
 * @returns The key.
 * @throws {TypeError} When the text is not an Ed25519 key of that kind, saying what it is.
 *
 * @example
 * ```ts
 * import { generateAuditKeys, importAuditKey, signAuditCheckpoint, verifyAuditCheckpoint } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const { privatePem, publicPem } = await generateAuditKeys();
 * const checkpoint = await signAuditCheckpoint({ seq: 1, hash: "a".repeat(64) }, {
 *   privateKey: await importAuditKey(privatePem, "sign"),
 * });
 * assert.equal(await verifyAuditCheckpoint(checkpoint, await importAuditKey(publicPem, "verify")), true);
 * assert.equal(await verifyAuditCheckpoint({ ...checkpoint, seq: 2 }, await importAuditKey(privatePem, "verify")), false);
 * ```
 */
export async function importAuditKey(
  text: string,
  use: "sign" | "verify",
): Promise<AuditKey> {
  const trimmed = text.trim();
  let jwk: Jwk | undefined;
  if (trimmed.startsWith("{")) {
    try {
      jwk = JSON.parse(trimmed) as Jwk;
    } catch {
      throw new TypeError("the key file is not JSON (a JWK) nor PEM");
    }
    if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") {
      throw new TypeError("the JWK is not an Ed25519 key (kty OKP, crv Ed25519)");
    }
  }
  const block = jwk ? undefined : pem(trimmed);
  if (!jwk && !block) throw new TypeError("the key file is neither a JWK nor PEM");
  if (use === "sign") {
    if (jwk) {
      if (typeof jwk.d !== "string") {
        throw new TypeError("the JWK is a public key; signing needs the private key (with d)");
      }
      return await crypto.subtle.importKey("jwk", jwk, ED25519, false, ["sign"]);
    }
    if (block!.label !== "PRIVATE KEY") {
      throw new TypeError(`the PEM holds a ${block!.label}; signing needs a PRIVATE KEY (PKCS #8)`);
    }
    return await crypto.subtle.importKey("pkcs8", block!.der, ED25519, false, ["sign"]);
  }
  if (!jwk && block!.label === "PUBLIC KEY") {
    return await crypto.subtle.importKey("spki", block!.der, ED25519, true, ["verify"]);
  }
  if (!jwk && block!.label !== "PRIVATE KEY") {
    throw new TypeError(`the PEM holds a ${block!.label}, not a PUBLIC KEY or PRIVATE KEY`);
  }
  // A private key's file: its public half (x) is in its JWK form.
  const full = jwk ?? await crypto.subtle.exportKey(
    "jwk",
    await crypto.subtle.importKey("pkcs8", block!.der, ED25519, true, ["sign"]),
  );
  const { kty, crv, x } = full;
  return await crypto.subtle.importKey("jwk", { kty, crv, x }, ED25519, true, ["verify"]);
}

/** A new key pair as the files that hold it. */
export interface AuditKeyFiles {
  /** The private key, PKCS #8 PEM: keep it with the operator, never in the estate. */
  privatePem: string;
  /** The public key, SPKI PEM: what `estate audit verify --key` reads. */
  publicPem: string;
}

function pemText(label: string, der: ArrayBuffer): string {
  const b64 = btoa(String.fromCharCode(...new Uint8Array(der)));
  return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
}

/**
 * Makes a new Ed25519 key pair for signing checkpoints.
 *
 * @returns The private key (PKCS #8 PEM) and the public key (SPKI PEM).
 */
export async function generateAuditKeys(): Promise<AuditKeyFiles> {
  const pair = await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"]) as {
    privateKey: AuditKey;
    publicKey: AuditKey;
  };
  return {
    privatePem: pemText("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", pair.privateKey)),
    publicPem: pemText("PUBLIC KEY", await crypto.subtle.exportKey("spki", pair.publicKey)),
  };
}
