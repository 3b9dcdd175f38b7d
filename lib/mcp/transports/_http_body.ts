/**
 * Reading a request body under a size limit and a deadline, and the media-type checks on
 * `Accept` and `Content-Type`.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";

/** A body read, or why it could not be. */
export type BodyResult =
  | { ok: true; text: string }
  | { ok: false; refusal: "body-unreadable" | "body-timeout" | "body-too-large"; message: string };

/** Limits on one body. */
export interface BodyLimits {
  /** The most bytes accepted. */
  maxBytes: number;
  /** How long the whole body may take to arrive, from when reading starts. */
  timeoutMs: number;
  /**
   * Runs a function once after `ms` unless cancelled (the connection guard's sweep); a timer of
   * its own by default.
   */
  deadline?: (ms: number, fire: () => void) => () => void;
}

/** A timer of its own: what a body read uses when it is given no deadline keeper. */
function ownTimer(ms: number, fire: () => void): () => void {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
}

/** Decodes strict UTF-8 (one decoder: `decode` without `stream` keeps no state between calls). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a request body as UTF-8 text. Resolves with 413 as soon as the body is known to be too
 * big (by `Content-Length` or by counting), with 408 when it has not fully arrived in time, and
 * with 400 when the client aborts or sends invalid UTF-8. The deadline also guards the rest of an
 * oversized body, which is discarded: a client still sending when it passes is disconnected.
 *
 * @param req The request.
 * @param limits The size and time limits.
 * @returns The text, or the status and message to answer with.
 */
export function readBody(
  req: IncomingMessage,
  limits: BodyLimits,
): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      resolve(result);
    };
    const tooBig = (): BodyResult => ({
      ok: false,
      refusal: "body-too-large",
      message: `Content Too Large: the request body exceeds ${limits.maxBytes} bytes`,
    });
    const cancel = (limits.deadline ?? ownTimer)(limits.timeoutMs, () => {
      if (settled) {
        req.socket?.destroy(); // still sending the rest of a refused body
        return;
      }
      settle({
        ok: false,
        refusal: "body-timeout",
        message: `Request Timeout: the request body did not arrive within ${limits.timeoutMs} ms`,
      });
    });
    const stop = (): void => cancel();
    req.once("close", stop);
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      settle(tooBig());
    }
    req.on("data", (chunk: Uint8Array) => {
      if (settled) return;
      size += chunk.length;
      if (size > limits.maxBytes) settle(tooBig());
      else chunks.push(chunk);
    });
    req.once("end", () => {
      stop();
      if (settled) return;
      const bytes = new Uint8Array(size);
      let offset = 0;
      for (const c of chunks) {
        bytes.set(c, offset);
        offset += c.length;
      }
      try {
        settle({
          ok: true,
          text: UTF8.decode(bytes),
        });
      } catch {
        settle({
          ok: false,
          refusal: "body-unreadable",
          message: "Bad Request: the body is not valid UTF-8",
        });
      }
    });
    req.once("error", () => {
      stop();
      settle({
        ok: false,
        refusal: "body-unreadable",
        message: "Bad Request: the request was aborted",
      });
    });
    req.resume();
  });
}

/**
 * Whether an `Accept` header admits a media type (`type/*` and `*` wildcards count; `q=0` does
 * not). A missing header admits nothing: MCP clients must list what they accept.
 *
 * @param accept The `Accept` header.
 * @param type A media type such as `text/event-stream`.
 * @returns True when admitted.
 */
export function accepts(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return false;
  const [major] = type.split("/");
  return accept.split(",").some((range) => {
    const [media, ...params] = range.split(";").map((p) => p.trim().toLowerCase());
    if (params.some((p) => /^q=0(\.0{0,3})?$/.test(p.replace(/\s+/g, "")))) {
      return false;
    }
    return media === type || media === `${major}/*` || media === "*/*";
  });
}

/**
 * Whether a `Content-Type` header says JSON (`application/json`, any parameters).
 *
 * @param contentType The header.
 * @returns True for JSON.
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType?.split(";")[0].trim().toLowerCase() === "application/json";
}
