/**
 * What a server asks of its client, in the directions MCP runs server → client: a completion from
 * the client's model (`sampling/createMessage`), input from the user (`elicitation/create`, form or
 * URL mode), the client's roots (`roots/list`). A tool handler asks through its `ToolContext`
 * (`sample`, `elicit`, `listRoots`) with the same code in both eras: in the handshake era each is a
 * JSON-RPC request on the session; in 2026-07-28 the call ends with an input-required result and
 * the client calls again with the answer.
 *
 * The estate, not the handler's author, decides when a call is confirmed by the user:
 * {@linkcode CONFIRMATION} maps each side-effect class to whether it is, as `RETRYABLE` maps it to
 * whether a retry is safe; a spec's `confirm` can only add a confirmation.
 *
 * @module
 */
import type { SideEffect, ToolSpec } from "../estate/spec.ts";

// The sampling and roots shapes are the ones the client side answers (`server_requests.ts`).
export type { Root, SamplingMessage, SamplingRequest, SamplingResult } from "./server_requests.ts";

/**
 * Form-mode elicitation: a message and a flat form — the restricted schema MCP allows: an object of
 * string (optionally `email`, `uri`, `date`, `date-time`), number, integer, boolean and enum
 * properties, nothing nested.
 */
export interface FormElicitationRequest {
  /** `form` (the default when absent). */
  mode?: "form";
  /** What the user is asked, shown as the server's words. */
  message: string;
  /** The form. */
  requestedSchema: Record<string, unknown>;
}

/** URL-mode elicitation: the user is sent to a URL (out of band: credentials never cross MCP). */
export interface UrlElicitationRequest {
  /** `url`. */
  mode: "url";
  /** Why the user should go there. */
  message: string;
  /** Where. */
  url: string;
  /** An id for this elicitation, unique to the server. */
  elicitationId: string;
}

/** `elicitation/create` params. */
export type ElicitationRequest = FormElicitationRequest | UrlElicitationRequest;

/** What the user did: accepted (with the form's content), declined, or dismissed it. */
export interface ElicitationResult {
  /** `accept`, `decline` or `cancel`. */
  action: "accept" | "decline" | "cancel";
  /** The form's values, for an accepted form (checked against the form's schema). */
  content?: Record<string, unknown>;
}

/** Options for one ask. */
export interface AskOptions {
  /**
   * How long to wait for the client's answer in the handshake era, in milliseconds (a user
   * filling a form may take minutes). Default the session's `requestTimeoutMs` (30 s).
   */
  timeoutMs?: number;
  /**
   * The ask's key in a 2026-07-28 input-required result (`inputRequests`, and the client's
   * `inputResponses`): a name of the asker's, unique among the call's asks, such as `user_name`.
   * Default `ask-N`, N the ask's place among the call's asks (the estate's confirmation, when
   * there is one, is `ask-0`). Unused in the handshake era.
   */
  key?: string;
}

/**
 * Whether calls of each side-effect class are confirmed by the user (form elicitation) before the
 * handler runs: an `irreversible` call is; the others are not unless their spec asks (`confirm`).
 *
 * @example
 * ```ts
 * import { CONFIRMATION } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(CONFIRMATION.irreversible, true);
 * assert.equal(CONFIRMATION.read, false);
 * ```
 */
export const CONFIRMATION: Readonly<Record<SideEffect, boolean>> = Object
  .freeze({
    "read": false,
    "idempotent-write": false,
    "write": false,
    "irreversible": true,
  });

/**
 * Whether a version's calls are confirmed by the user before its handler runs: its class says so
 * ({@linkcode CONFIRMATION}), or its spec asks (`confirm`).
 *
 * @param spec The version.
 * @returns True when each call needs the user's confirmation.
 */
export function needsConfirmation(
  spec: Pick<ToolSpec, "sideEffect" | "confirm">,
): boolean {
  return CONFIRMATION[spec.sideEffect] || spec.confirm !== undefined;
}

/**
 * The question a confirmation asks: the spec's `confirm.message` with each `{name}` replaced by
 * the call's top-level argument of that name (strings, numbers and booleans only; anything else
 * stays as written); without one, the tool's title, name and arguments, and for an irreversible
 * tool that it cannot be undone.
 *
 * @param spec The version.
 * @param args The call's (valid) arguments.
 * @returns The question.
 *
 * @example
 * ```ts
 * import { confirmationMessage } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const spec = { name: "payments.release", title: "Release a payment", confirm: { message: "Release payment {reference} of {amount} {currency}?" } };
 * assert.equal(
 *   confirmationMessage(spec, { reference: "PMT-000042", amount: 1200, currency: "GBP" }),
 *   "Release payment PMT-000042 of 1200 GBP?",
 * );
 * assert.equal(
 *   confirmationMessage(
 *     { name: "payments.release", title: "Release a held payment", sideEffect: "irreversible" },
 *     { reference: "PMT-004211", approvedAmount: 2450000, currency: "EUR" },
 *   ),
 *   "Release a held payment (payments.release) — reference PMT-004211, approvedAmount 2450000, currency EUR. This cannot be undone. Go ahead?",
 * );
 * ```
 */
export function confirmationMessage(
  spec: Pick<ToolSpec, "name" | "title" | "confirm"> & {
    sideEffect?: SideEffect;
  },
  args: Record<string, unknown>,
): string {
  const template = spec.confirm?.message;
  if (template === undefined) {
    const shown = Object.entries(args).map(([k, v]) =>
      `${k} ${typeof v === "string" ? v : JSON.stringify(v)}`
    );
    const what = shown.length ? ` — ${shown.join(", ")}` : "";
    const undone = spec.sideEffect === "irreversible" ? " This cannot be undone." : "";
    return `${spec.title} (${spec.name})${what}.${undone} Go ahead?`;
  }
  return template.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string) => {
    const v = Object.hasOwn(args, name) ? args[name] : undefined;
    return typeof v === "string" || typeof v === "number" ||
        typeof v === "boolean"
      ? String(v)
      : whole;
  });
}

/** The form a confirmation shows: one required yes/no field. */
export const CONFIRMATION_SCHEMA: Readonly<Record<string, unknown>> = Object
  .freeze({
    type: "object",
    properties: Object.freeze({
      confirm: Object.freeze({
        type: "boolean",
        title: "Confirm",
        default: false,
      }),
    }),
    required: Object.freeze(["confirm"]),
  });
