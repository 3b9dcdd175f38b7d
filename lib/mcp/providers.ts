/**
 * What a server offers beside the estate's tools: resources ({@linkcode ResourceProvider}) and
 * prompts ({@linkcode PromptProvider}), each item guarded by the tools it needs (`requires`).
 *
 * @module
 */
import type { Guarded } from "../estate/requirement.ts";
import type { Principal } from "../estate/spec.ts";
import type {
  AskOptions,
  ElicitationRequest,
  ElicitationResult,
  Root,
  SamplingRequest,
  SamplingResult,
} from "./asks.ts";
import type {
  Prompt,
  PromptMessage,
  Resource,
  ResourceContents,
  ResourceTemplate,
} from "./protocol.ts";

/**
 * Resources a server offers; `read` returns undefined for an unknown URI.
 *
 * A resource or template that serves a tool's data declares it in `requires` (e.g.
 * `{ tools: ["payments.lookup"] }`): the server lists it, reads it, and sends its updates only to
 * principals who meet that, and answers everyone else exactly as for a URI that does not exist.
 * A URI is guarded by the requirement of the listed resource with that URI and of every template
 * it matches.
 */
export interface ResourceProvider {
  /** The resources offered (the server drops those whose `requires` the principal lacks). */
  list(principal: Principal): Guarded<Resource>[];
  /** The resource templates (the server drops those whose `requires` the principal lacks). */
  templates?(principal: Principal): Guarded<ResourceTemplate>[];
  /** A resource's contents, or undefined when there is no such resource (for this principal). */
  read(uri: string, principal: Principal): ResourceContents[] | undefined;
  /**
   * Whether `list`, `templates` and `read` may answer differently for different principals beyond
   * the `requires` the server applies. Default true, the safe assumption: answers are
   * `cacheScope: "private"`. Set false for a provider that ignores the principal; its answers are
   * then `public` where every item involved is for everyone.
   */
  variesByPrincipal?: boolean;
}

/** A prompt's arguments were wrong: the message says which. */
export class PromptArgumentError extends Error {
  /**
   * Makes the error.
   *
   * @param message Which argument is missing or wrong.
   */
  constructor(message: string) {
    super(message);
    this.name = "PromptArgumentError";
  }
}

/** What {@linkcode PromptProvider.getPrompt} is asked: a prompt, its arguments, for whom. */
export interface PromptRequest {
  /** The prompt's name. */
  name: string;
  /** Its arguments. */
  args: Record<string, string>;
  /** Who asks. */
  principal: Principal;
}

/** What {@linkcode PromptProvider.completeArgument} is asked. */
export interface PromptCompletionRequest {
  /** The prompt's name. */
  name: string;
  /** The argument being completed. */
  argument: string;
  /** Its partial value. */
  value: string;
  /** Who asks. */
  principal: Principal;
}

/** A prompt's messages, as `prompts/get` answers them. */
export interface PromptResult {
  /** What the prompt is for. */
  description?: string;
  /** Its messages. */
  messages: PromptMessage[];
}

/**
 * What a prompt's `getPrompt` may use besides its request: the client's capabilities, and asks of
 * the client, as a tool handler's (`ToolContext`) — in the handshake era a request on the session;
 * in 2026-07-28 an input-required result, after which the client gets the prompt again with the
 * answers and `getPrompt` runs again from the start. A provider is the server's own
 * code: it declares no `uses`, but asks only what the client declared (an ask it did not is
 * `MissingClientCapabilityError`: `-32021` in 2026-07-28, `-32602` before).
 */
export interface PromptContext {
  /** The capabilities the client declared (the handshake's, or the request's envelope). */
  clientCapabilities: Record<string, unknown>;
  /** Aborted when the caller cancels, or when an ask waits for the client's next round. */
  signal: AbortSignal;
  /** Asks the client's model for a completion (`sampling/createMessage`). */
  sample(
    request: SamplingRequest,
    options?: AskOptions,
  ): Promise<SamplingResult>;
  /** Asks the user for input (`elicitation/create`); an accepted form's content fits the form. */
  elicit(
    request: ElicitationRequest,
    options?: AskOptions,
  ): Promise<ElicitationResult>;
  /** Asks the client for its roots (`roots/list`). */
  listRoots(options?: AskOptions): Promise<Root[]>;
}

/**
 * Prompts a server offers; `getPrompt` (or the older `get`) returns undefined for an unknown
 * prompt.
 *
 * A prompt whose text names tools, or whose arguments complete to a tool's data, declares them in
 * `requires` (e.g. `{ tools: ["payments.lookup", "policy.search"] }`): the server lists it,
 * gets it and completes its arguments only for principals who meet that, and answers everyone
 * else exactly as for a prompt that does not exist — without calling `get` or `complete`.
 */
export interface PromptProvider {
  /** The prompts offered (the server drops those whose `requires` the principal does not meet). */
  list(principal: Principal): Guarded<Prompt>[];
  /**
   * A prompt's messages, or undefined when there is no such prompt.
   * @throws {PromptArgumentError} When a required argument is missing.
   * @deprecated Implement {@linkcode PromptProvider.getPrompt}, which takes one options object;
   *   the server calls `get` only for a provider without it.
   */
  get?(
    name: string,
    args: Record<string, string>,
    principal: Principal,
  ): PromptResult | undefined;
  /**
   * A prompt's messages, or undefined when there is no such prompt. (Preferred to `get`.) It may
   * ask the client first, through `context`.
   * @throws {PromptArgumentError} When a required argument is missing.
   */
  getPrompt?(
    request: PromptRequest,
    context: PromptContext,
  ): PromptResult | undefined | Promise<PromptResult | undefined>;
  /**
   * Completions for a prompt argument's partial value.
   * @deprecated Implement {@linkcode PromptProvider.completeArgument}, which takes one options
   *   object; the server calls `complete` only for a provider without it.
   */
  complete?(
    name: string,
    argument: string,
    value: string,
    principal: Principal,
  ): string[];
  /**
   * Completions for a prompt argument's partial value (`completion/complete`); none when absent.
   * The values must be ones the principal may see (the example system filters by tenant and
   * scopes); none for a prompt it does not have.
   */
  completeArgument?(request: PromptCompletionRequest): string[];
  /**
   * Whether `list` may answer differently for different principals beyond the `requires` the
   * server applies. Default true: `prompts/list` is `cacheScope: "private"`. Set false for a
   * provider that ignores the principal; the list is then `public` when every prompt is for
   * everyone.
   */
  variesByPrincipal?: boolean;
}
