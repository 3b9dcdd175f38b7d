// Randomness and signatures for the OAuth client, on Web Crypto only: PKCE (RFC 7636, S256),
// `state`, and `private_key_jwt` client assertions (RFC 7523 §2.2, signed ES256 or RS256).

const encoder = new TextEncoder();

/** Base64url without padding (RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** `n` random bytes as base64url: 32 give a 43-character PKCE verifier (RFC 7636 §4.1). */
export function randomToken(n = 32): string {
  const bytes = new Uint8Array(n);
  crypto.getRandomValues(bytes);
  return base64url(bytes);
}

/** The S256 code challenge of a verifier: BASE64URL(SHA256(verifier)). */
export async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    encoder.encode(verifier),
  );
  return base64url(new Uint8Array(digest));
}

import type { AssertionAlgorithm } from "./oauth_options.ts";

const ALGORITHMS: Record<
  AssertionAlgorithm,
  {
    key: EcKeyImportParams | RsaHashedImportParams;
    sign: AlgorithmIdentifier | EcdsaParams;
  }
> = {
  ES256: {
    key: { name: "ECDSA", namedCurve: "P-256" },
    sign: { name: "ECDSA", hash: "SHA-256" },
  },
  RS256: {
    key: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    sign: { name: "RSASSA-PKCS1-v1_5" },
  },
};

/** Imports a PKCS#8 PEM private key for signing. */
export async function importPrivateKey(
  pem: string,
  algorithm: AssertionAlgorithm,
): Promise<CryptoKey> {
  const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(
    /\s+/g,
    "",
  );
  const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  return await crypto.subtle.importKey(
    "pkcs8",
    der,
    ALGORITHMS[algorithm].key,
    false,
    ["sign"],
  );
}

/**
 * A signed JWT client assertion (RFC 7523 §3): `iss` and `sub` the client id, `aud` the
 * authorization server's issuer, a fresh `jti`, valid for a minute.
 */
export async function clientAssertion(parts: {
  clientId: string;
  audience: string;
  key: CryptoKey;
  algorithm: AssertionAlgorithm;
  keyId?: string;
  now: number;
}): Promise<string> {
  const header = {
    alg: parts.algorithm,
    typ: "JWT",
    ...(parts.keyId ? { kid: parts.keyId } : {}),
  };
  const iat = Math.floor(parts.now / 1000);
  const payload = {
    iss: parts.clientId,
    sub: parts.clientId,
    aud: parts.audience,
    jti: randomToken(16),
    iat,
    exp: iat + 60,
  };
  const input = `${base64url(encoder.encode(JSON.stringify(header)))}.${
    base64url(encoder.encode(JSON.stringify(payload)))
  }`;
  // Web Crypto's ECDSA signature is r || s, the JWS form (RFC 7518 §3.4).
  const signature = await crypto.subtle.sign(
    ALGORITHMS[parts.algorithm].sign,
    parts.key,
    encoder.encode(input),
  );
  return `${input}.${base64url(new Uint8Array(signature))}`;
}
