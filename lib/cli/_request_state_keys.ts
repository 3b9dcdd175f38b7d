/**
 * The keys `estate serve` seals 2026-07-28 `requestState`s with, from the environment (never a
 * flag: a flag shows in the process list): `ESTATE_REQUEST_STATE_KEY`, the key that seals, and
 * `ESTATE_REQUEST_STATE_PREVIOUS_KEYS`, earlier keys (comma-separated) that still open the states
 * they sealed while a rotation runs. Each is base64 or base64url of 32 random bytes or more
 * (`openssl rand -base64 32`). Replicas given the same keys answer each other's retries; without
 * them each process draws its own, and a confirmation must come back to the replica that asked.
 *
 * @module
 */
import { UsageError } from "./_args.ts";

/** The variable holding the key that seals. */
export const REQUEST_STATE_KEY_ENV = "ESTATE_REQUEST_STATE_KEY";
/** The variable holding the earlier keys, comma-separated, that still open. */
export const REQUEST_STATE_PREVIOUS_KEYS_ENV = "ESTATE_REQUEST_STATE_PREVIOUS_KEYS";

const MIN_BYTES = 32;

function decodeKey(text: string, where: string): Uint8Array {
  const trimmed = text.trim();
  const b64 = trimmed.replace(/-/g, "+").replace(/_/g, "/");
  let bytes: Uint8Array | undefined;
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) {
    try {
      bytes = Uint8Array.from(
        atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "=")),
        (c) => c.charCodeAt(0),
      );
    } catch {
      bytes = undefined;
    }
  }
  if (!bytes) {
    throw new UsageError(
      `${where} is not base64: give 32 random bytes or more in base64 (openssl rand -base64 32)`,
    );
  }
  if (bytes.length < MIN_BYTES) {
    throw new UsageError(
      `${where} holds ${bytes.length} bytes; a requestState key needs ${MIN_BYTES} random bytes or more (openssl rand -base64 32)`,
    );
  }
  return bytes;
}

/**
 * The keys the environment gives, newest first; undefined when it gives none.
 *
 * @param env The environment.
 * @returns The keys: the sealing one, then the earlier ones.
 * @throws {UsageError} When a key is not base64, shorter than 32 bytes, or earlier keys are given
 *   without the current one.
 */
export function requestStateKeys(
  env: Record<string, string | undefined>,
): Uint8Array[] | undefined {
  const current = env[REQUEST_STATE_KEY_ENV];
  const previous = env[REQUEST_STATE_PREVIOUS_KEYS_ENV];
  if (current === undefined || current.trim() === "") {
    if (previous !== undefined && previous.trim() !== "") {
      throw new UsageError(
        `${REQUEST_STATE_PREVIOUS_KEYS_ENV} is set but ${REQUEST_STATE_KEY_ENV} is not: earlier keys only open states, one key must seal them`,
      );
    }
    return undefined;
  }
  const keys = [decodeKey(current, REQUEST_STATE_KEY_ENV)];
  const earlier = (previous ?? "").split(",").map((k) => k.trim()).filter((k) => k !== "");
  earlier.forEach((k, i) =>
    keys.push(decodeKey(k, `${REQUEST_STATE_PREVIOUS_KEYS_ENV} (key ${i + 1})`))
  );
  return keys;
}
