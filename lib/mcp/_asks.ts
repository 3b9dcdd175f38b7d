/**
 * How one tool call asks its client (sampling, elicitation, roots), in either era, and what the
 * estate checks on the way: that the tool declared the direction (`uses`), that the client declared
 * the capability, that the request is well formed (a form is MCP's restricted flat schema, checked
 * by `elicitation_schema.ts` as the client side checks it), and that the client's answer has the
 * shape its method promises (an accepted form's content satisfies the form: a client cannot answer
 * what it was not asked).
 *
 * Handshake era: each ask is a JSON-RPC request to the client on the session's peer, related to the
 * `tools/call` (on HTTP it goes out on that POST's SSE stream). 2026-07-28: each ask has a key
 * (the asker's, or `ask-N` for the N-th ask of the call) and is answered from the rounds the client
 * already completed (`requestState`, sealed, plus the `inputResponses` for the keys it asked); an
 * ask without an answer ends the call with an input-required result carrying it, and every other
 * unanswered ask made with it (asks made together, e.g. under `Promise.all`, go out in one round).
 *
 * @module
 */
import { ERROR_CODES } from "../jsonrpc/errors.ts";
import type { RequestContext } from "../jsonrpc/peer_types.ts";
import { isObject } from "../_object.ts";
import type { ClientDirection } from "../estate/spec.ts";
import { argumentsDigest, randomNonce, type RequestState } from "./_request_state.ts";
import { type Caller, protocolError, type ServerCore } from "./_server_core.ts";
import type {
  AskOptions,
  ElicitationRequest,
  ElicitationResult,
  Root,
  SamplingRequest,
  SamplingResult,
} from "./asks.ts";
import { checkElicitationContent, checkElicitationSchema } from "./elicitation_schema.ts";
import { MissingClientCapabilityError } from "./tool_handler.ts";

/** The asks one call may make. */
export interface Asker {
  /** `sampling/createMessage`. */
  sample(
    request: SamplingRequest,
    options?: AskOptions,
  ): Promise<SamplingResult>;
  /** `elicitation/create`. */
  elicit(
    request: ElicitationRequest,
    options?: AskOptions,
  ): Promise<ElicitationResult>;
  /** `roots/list`. */
  listRoots(options?: AskOptions): Promise<Root[]>;
}

/** An ask the client has not answered yet (2026-07-28): the call ends asking it. */
export interface PendingInput {
  /** The key in `inputRequests`. */
  readonly key: string;
  /** The request. */
  readonly method: string;
  /** Its params. */
  readonly params: Record<string, unknown>;
}

/** Thrown inside a handler at an ask the client has not answered yet. */
export class InputRequired extends Error {
  /**
   * @param pending The ask.
   */
  constructor(readonly pending: PendingInput) {
    super(`waiting for the client's answer to ${pending.method}`);
    this.name = "InputRequired";
  }
}

/**
 * The rounds of a 2026-07-28 call: the answers so far, by key, and the asks still open. An ask's
 * key is the asker's own (`AskOptions.key`) or `ask-N`, N its place among the call's asks; keys
 * are unique within the call.
 */
export class InputRounds {
  /** The verified state the client presented, if any. */
  readonly state: RequestState | undefined;
  /** The asks without an answer, in the order made. */
  readonly pending: PendingInput[] = [];
  readonly #answers: Readonly<Record<string, unknown>>;
  readonly #asked = new Set<string>();
  #next = 0;

  /**
   * @param answers The answers so far, by key.
   * @param state The verified state they came with.
   */
  constructor(
    answers: Readonly<Record<string, unknown>>,
    state: RequestState | undefined,
  ) {
    this.#answers = answers;
    this.state = state;
  }

  /**
   * The answer to the next ask, or {@linkcode InputRequired}.
   *
   * @throws {TypeError} When the key is not a non-empty string, or another ask of the call has it.
   */
  next(method: string, params: Record<string, unknown>, key?: string): unknown {
    const index = this.#next++;
    if (key !== undefined && (typeof key !== "string" || key === "")) {
      throw new TypeError(
        `an ask's key must be a non-empty string, got ${JSON.stringify(key)}`,
      );
    }
    const k = key ?? `ask-${index}`;
    if (this.#asked.has(k)) {
      throw new TypeError(`two asks of one call have the key ${k}`);
    }
    this.#asked.add(k);
    if (Object.hasOwn(this.#answers, k)) return this.#answers[k];
    const pending = { key: k, method, params };
    this.pending.push(pending);
    throw new InputRequired(pending);
  }

  /** The answers this run's asks used: what the next round's state carries. */
  used(): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(this.#answers).filter(([k]) => this.#asked.has(k)),
    );
  }
}

/** The methods, by direction. */
const METHOD: Readonly<Record<ClientDirection, string>> = {
  sampling: "sampling/createMessage",
  elicitation: "elicitation/create",
  roots: "roots/list",
};

/** The capability a request needs, as `-32021` names it. */
function needed(
  direction: ClientDirection,
  mode?: "form" | "url",
): Record<string, unknown> {
  if (direction !== "elicitation") return { [direction]: {} };
  return { elicitation: { [mode ?? "form"]: {} } };
}

/**
 * Whether the client declared what a request needs. An `elicitation: {}` with neither mode named
 * means form mode (as the specification says for older clients).
 *
 * @param capabilities What the client declared.
 * @param direction The direction.
 * @param mode For elicitation, the mode.
 * @returns True when it may be asked.
 */
export function clientCan(
  capabilities: Record<string, unknown> | undefined,
  direction: ClientDirection,
  mode: "form" | "url" = "form",
): boolean {
  const c = capabilities?.[direction];
  if (!isObject(c)) return false;
  if (direction !== "elicitation") return true;
  if (c.form === undefined && c.url === undefined) return mode === "form";
  return isObject(c[mode]);
}

/** Checks a request before it is sent: a handler bug is the handler's error, not the client's. */
function checkRequest(
  direction: ClientDirection,
  params: Record<string, unknown>,
): void {
  if (direction === "sampling") {
    if (
      !Array.isArray(params.messages) || !Number.isInteger(params.maxTokens)
    ) {
      throw new TypeError(
        "sample() needs messages (a list) and maxTokens (an integer)",
      );
    }
  } else if (direction === "elicitation") {
    if (typeof params.message !== "string") {
      throw new TypeError("elicit() needs a message");
    }
    if (params.mode === "url") {
      if (
        typeof params.url !== "string" ||
        typeof params.elicitationId !== "string"
      ) {
        throw new TypeError("elicit() in url mode needs url and elicitationId");
      }
      let url: URL;
      try {
        url = new URL(params.url);
      } catch {
        throw new TypeError(
          `elicit(): ${JSON.stringify(params.url)} is not a URL`,
        );
      }
      if (
        url.protocol !== "https:" && url.hostname !== "localhost" &&
        url.hostname !== "127.0.0.1"
      ) {
        throw new TypeError(
          `elicit(): the URL must be https, got ${url.protocol}`,
        );
      }
    } else {
      const issues = checkElicitationSchema(params.requestedSchema);
      if (issues.length) {
        throw new TypeError(
          `elicit(): requestedSchema is not a form MCP allows: ${
            issues.map((i) => `${i.path}: ${i.message}`).join("; ")
          }`,
        );
      }
    }
  }
}

/**
 * Checks the client's answer against what its method promises; an accepted form's content must
 * satisfy the form.
 *
 * @param direction The direction asked.
 * @param params The request as sent.
 * @param answer The client's answer.
 * @returns The answer, typed.
 * @throws {Error} Naming what is wrong with the answer.
 */
export function checkAnswer(
  direction: ClientDirection,
  params: Record<string, unknown>,
  answer: unknown,
): unknown {
  const bad = (what: string): never => {
    throw new Error(
      `the client's answer to ${METHOD[direction]} is not valid: ${what}`,
    );
  };
  if (!isObject(answer)) return bad("not an object");
  if (direction === "sampling") {
    if (
      answer.role !== "assistant" || !isObject(answer.content) ||
      typeof answer.model !== "string"
    ) {
      bad("it needs role assistant, content and model");
    }
  } else if (direction === "roots") {
    if (
      !Array.isArray(answer.roots) ||
      !answer.roots.every((r) => isObject(r) && typeof r.uri === "string")
    ) bad("roots must be a list of {uri, name?}");
  } else {
    if (!["accept", "decline", "cancel"].includes(answer.action as string)) {
      bad("action must be accept, decline or cancel");
    }
    if (answer.action === "accept" && params.mode !== "url") {
      if (!isObject(answer.content)) bad("an accepted form needs its content");
      const issues = checkElicitationContent(
        params.requestedSchema as Record<string, unknown>,
        answer.content,
      );
      if (issues.length) {
        bad(
          `the content does not fit the form: ${
            issues.map((i) => `${i.path} ${i.message}`).join("; ")
          }`,
        );
      }
    }
  }
  return answer;
}

/** What an asker needs to know about its call. */
export interface AskerOptions {
  /** Who calls. */
  caller: Caller;
  /** The request, as its peer serves it (handshake era: the asks go out through it). */
  context: RequestContext;
  /** Who asks, as errors name it: `payments.release@1.0.1`. */
  who: string;
  /**
   * The directions it may ask (a tool version's `uses`). Absent: any — the estate's own asks (the
   * confirmation step) and a prompt provider's.
   */
  uses?: readonly ClientDirection[];
  /** 2026-07-28: the rounds so far. Absent in the handshake era. */
  rounds?: InputRounds;
  /** Whether the session can carry requests to the client (handshake era). */
  canRequest: boolean;
}

/**
 * The asks one call may make, in its era.
 *
 * @param options The call.
 * @returns Its asker.
 */
export function askerFor(options: AskerOptions): Asker {
  const { caller, context, rounds } = options;
  const ask = async (
    direction: ClientDirection,
    params: Record<string, unknown>,
    askOptions: AskOptions = {},
  ): Promise<unknown> => {
    if (options.uses && !options.uses.includes(direction)) {
      throw new Error(
        `${options.who} does not declare uses: ["${direction}"], so it may not ask the client for it`,
      );
    }
    const mode = direction === "elicitation" && params.mode === "url" ? "url" : "form";
    if (!clientCan(caller.clientCapabilities, direction, mode)) {
      throw new MissingClientCapabilityError(needed(direction, mode));
    }
    checkRequest(direction, params);
    const method = METHOD[direction];
    if (rounds) {
      return checkAnswer(
        direction,
        params,
        rounds.next(method, params, askOptions.key),
      );
    }
    if (!options.canRequest) {
      throw new Error(`this connection cannot carry ${method} to the client`);
    }
    const answer = await context.request(method, params, {
      timeoutMs: askOptions.timeoutMs,
      signal: context.signal,
    });
    return checkAnswer(direction, params, answer);
  };
  return {
    sample: async (request, o) =>
      await ask(
        "sampling",
        request as unknown as Record<string, unknown>,
        o,
      ) as SamplingResult,
    elicit: async (request, o) =>
      await ask(
        "elicitation",
        request as unknown as Record<string, unknown>,
        o,
      ) as ElicitationResult,
    listRoots: async (o) => ((await ask("roots", {}, o)) as { roots: Root[] }).roots,
  };
}

/** An asker whose asks are watched while the code that asks runs (a handler, a prompt's `get`). */
export interface TrackedAsks {
  /** The asks, watched. */
  readonly asker: Asker;
  /** Aborted once an ask waits for the client's next round: the code need not go on. */
  readonly waiting: AbortSignal;
  /** The first ask that waits for the client (2026-07-28), if any. */
  open(): InputRequired | undefined;
  /**
   * The first malformed ask (a bad form, a key used twice), if any: the asking code's bug, which
   * ends the request even when other asks made with it wait for the client.
   */
  fault(): TypeError | undefined;
}

/**
 * Watches an asker's asks: which waits for the client, which is malformed. The asking code may
 * catch what its asks throw; what they threw is known all the same.
 *
 * @param asker The asker.
 * @returns The watched asks.
 */
export function trackAsks(asker: Asker): TrackedAsks {
  const waiting = new AbortController();
  let open: InputRequired | undefined;
  let fault: TypeError | undefined;
  const watch = <T>(ask: () => Promise<T>): Promise<T> =>
    ask().catch((e) => {
      if (e instanceof InputRequired) {
        open ??= e;
        waiting.abort(e);
      } else if (e instanceof TypeError) fault ??= e;
      throw e;
    });
  return {
    asker: {
      sample: (r, o) => watch(() => asker.sample(r, o)),
      elicit: (r, o) => watch(() => asker.elicit(r, o)),
      listRoots: (o) => watch(() => asker.listRoots(o)),
    },
    waiting: waiting.signal,
    open: () => open,
    fault: () => fault,
  };
}

/** Options for {@linkcode openRounds}. */
export interface OpenRoundsOptions {
  /** Who calls. */
  caller: Caller;
  /** What a state is bound to besides the principal and arguments: `tools/call <name>`. */
  request: string;
  /** The request's arguments. */
  args: Record<string, unknown>;
  /** The request's params (`requestState`, `inputResponses`). */
  params: Record<string, unknown>;
}

/**
 * The rounds a 2026-07-28 request arrives with: none on a first call; on a retry, the answers its
 * sealed `requestState` carries plus those `inputResponses` gives for the keys that state asked.
 * Any other key is ignored (the specification's SHOULD), and so is `inputResponses` without a
 * `requestState`: an answer counts only for an ask the server made.
 *
 * @param core The server.
 * @param options The request.
 * @returns The rounds.
 * @throws {JsonRpcError} `-32602` when `inputResponses` is not an object, or the state fails
 *   verification (forged, expired, another principal's or another request's, or already spent).
 */
export async function openRounds(
  core: ServerCore,
  options: OpenRoundsOptions,
): Promise<InputRounds> {
  const { caller, request, args, params } = options;
  const responses = params.inputResponses;
  if (responses !== undefined && !isObject(responses)) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: inputResponses must be an object (input request keys to their results)",
    );
  }
  if (params.requestState === undefined) return new InputRounds({}, undefined);
  const opened = await core.requestStates().open(params.requestState, {
    principal: caller.principal.id,
    request,
    digest: await argumentsDigest(args),
    now: core.now(),
  });
  // Claimed as it opens, before anything runs: two retries with one state (here, or on a replica
  // sharing the spent states) cannot both run the call.
  const refusal = typeof opened === "string"
    ? opened
    : (await core.requestStates().claim(opened))
    ? undefined
    : "spent";
  if (typeof opened === "string" || refusal !== undefined) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: requestState refused (${refusal}); call again without it to start over`,
    );
  }
  const answers = { ...opened.answers };
  for (const key of opened.asked) {
    if (responses && Object.hasOwn(responses, key)) {
      answers[key] = responses[key];
    }
  }
  return new InputRounds(answers, opened);
}

/**
 * The input-required result for a request whose rounds ended with open asks: the asks, and the
 * sealed state of the answers used so far and of the keys now asked.
 *
 * @param core The server.
 * @param options The request and its rounds.
 * @returns The result (without `resultType`, which the era's wrapper adds).
 */
export async function inputRequiredResult(
  core: ServerCore,
  options: {
    caller: Caller;
    request: string;
    args: Record<string, unknown>;
    rounds: InputRounds;
  },
): Promise<Record<string, unknown>> {
  const { caller, request, args, rounds } = options;
  const requestState = await core.requestStates().seal({
    principal: caller.principal.id,
    request,
    digest: await argumentsDigest(args),
    expires: core.now() + (core.options.requestStateTtlMs ?? 600_000),
    answers: rounds.used(),
    asked: rounds.pending.map((p) => p.key),
    nonce: randomNonce(),
  });
  return {
    inputRequests: Object.fromEntries(
      rounds.pending.map((
        p,
      ) => [p.key, { method: p.method, params: p.params }]),
    ),
    requestState,
  };
}
