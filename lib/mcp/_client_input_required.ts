// The client's side of 2026-07-28 multi round-trip requests: a `tools/call`, `prompts/get` or
// `resources/read` answered `resultType: "input_required"` is answered through the same policy as
// a handshake-era server's requests (each input request served by the governor), then sent again
// — a new request, with `inputResponses` and the `requestState` echoed exactly — until the server
// completes it. A refusal ends it: nothing is retried and InputRequestRefusedError is thrown.

import { JsonRpcError } from "../jsonrpc/errors.ts";
import { isObject } from "../_object.ts";
import { InputRequestRefusedError } from "./client_errors.ts";
import { ServerRequestRefusal } from "./_client_governor.ts";

/** What the loop needs from its client. */
export interface InputRoundsHost {
  /** Sends the request once (a fresh id each time) and resolves with its result. */
  send(params: Record<string, unknown>): Promise<unknown>;
  /** Serves one input request under the policy; rejects with a `JsonRpcError` when refused. */
  serve(method: string, params: unknown): Promise<Record<string, unknown>>;
  /** The most round trips after the first request. */
  maxRounds: number;
}

/**
 * Sends a request and fulfils the `input_required` results it gets, up to `maxRounds` times.
 *
 * @param method The request's method (for errors).
 * @param params Its params (each retry adds `inputResponses` and `requestState` to these).
 * @param host How to send, and how to serve input requests.
 * @returns The first result that is not `input_required`.
 * @throws {InputRequestRefusedError} When an input request is refused, the rounds run out, or a
 *   result has nothing to answer.
 */
export async function fulfilInputRequired(
  method: string,
  params: Record<string, unknown>,
  host: InputRoundsHost,
): Promise<unknown> {
  let retry = params;
  for (let round = 0;; round++) {
    const result = await host.send(retry);
    if (!isObject(result) || result.resultType !== "input_required") {
      return result;
    }
    if (round >= host.maxRounds) {
      throw new InputRequestRefusedError(method, {
        reason: `the server asked for input more than ${host.maxRounds} times (maxInputRounds)`,
      });
    }
    const requests = result.inputRequests;
    const state = result.requestState;
    if (requests !== undefined && !isObject(requests)) {
      throw new InputRequestRefusedError(method, {
        reason: "inputRequests is not an object",
      });
    }
    if (state !== undefined && typeof state !== "string") {
      throw new InputRequestRefusedError(method, {
        reason: "requestState is not a string",
      });
    }
    const entries = Object.entries(requests ?? {});
    if (entries.length === 0 && state === undefined) {
      throw new InputRequestRefusedError(method, {
        reason: "the result has neither input requests nor a requestState (nothing to answer)",
      });
    }
    const responses: Record<string, unknown> = {};
    for (const [key, request] of entries) {
      if (!isObject(request) || typeof request.method !== "string") {
        throw new InputRequestRefusedError(method, {
          key,
          reason: "the input request has no method",
        });
      }
      try {
        responses[key] = await host.serve(request.method, request.params);
      } catch (e) {
        if (!(e instanceof JsonRpcError)) throw e;
        throw new InputRequestRefusedError(method, {
          key,
          inputMethod: request.method,
          code: e.code,
          reason: e instanceof ServerRequestRefusal ? e.reason : e.message,
        });
      }
    }
    retry = {
      ...params,
      ...(entries.length ? { inputResponses: responses } : {}),
      ...(state === undefined ? {} : { requestState: state }),
    };
  }
}
