/**
 * The server the MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, and
 * 0.2.0-alpha.12 with `--requirements 2026-07-28`) runs against: an `McpServer` over our
 * Streamable HTTP transport, with a fixture estate holding the tools, resources and prompts the
 * suite's scenarios call by name.
 *
 * The suite's client sends no credential, so the authenticator admits a request without an
 * `Authorization` header as the fixture principal (and refuses any token). Scenarios we do not
 * pass are listed, with reasons, in `expected-failures.yml` (0.1.16) and
 * `expected-failures-2026.yml` (the alpha) beside this file.
 *
 * Run it alone: `deno run -A tests/conformance/fixture_server.ts [--port N]`; it prints its URL.
 *
 * @module
 */
import {
  asTask,
  type ElicitationResult,
  ERROR_CODES,
  type FormElicitationRequest,
  JsonRpcError,
  McpServer,
  MissingClientCapabilityError,
  type Principal,
  PromptArgumentError,
  type PromptMessage,
  type PromptProvider,
  type ResourceProvider,
  type SamplingRequest,
  type ToolHandler,
  ToolRegistry,
  type ToolSpec,
} from "../../mod.ts";
import {
  type Authenticate,
  bearerToken,
  type McpHttpServer,
  serveHttp,
} from "../../lib/mcp/transports/http_mod.ts";

/** Who the conformance client is taken for. */
export const CONFORMANCE_PRINCIPAL: Principal = {
  id: "conformance-client",
  scopes: [],
  tenant: "conformance",
  clearance: "internal",
};

/** A 1x1 red PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** A valid WAV file: 8 kHz, 8-bit mono PCM, 8 samples of silence. */
function wav(): string {
  const samples = 8;
  const bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) bytes[at + i] = text.charCodeAt(i);
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, 8000, true); // sample rate
  view.setUint32(28, 8000, true); // byte rate
  view.setUint16(32, 1, true); // block align
  view.setUint16(34, 8, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, samples, true);
  bytes.fill(128, 44); // 8-bit silence
  return btoa(String.fromCharCode(...bytes));
}

/** An object schema with these (optional) properties and no others. */
const objectOf = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  additionalProperties: false,
});

const NO_ARGUMENTS = {
  type: "object",
  properties: {},
  additionalProperties: false,
};

/**
 * A fixture tool version: governed fields filled in, read-only, visible to the fixture principal;
 * `extra` overrides (an `inputSchema`, the directions it `uses`).
 */
function fixtureSpec(
  name: string,
  description: string,
  extra: Partial<ToolSpec> = {},
): ToolSpec {
  return {
    name,
    version: "1.0.0",
    title: name,
    description,
    inputSchema: NO_ARGUMENTS,
    sideEffect: "read",
    requiredScopes: [],
    dataClassification: "public",
    tenants: [],
    owner: "conformance-fixture",
    ...extra,
  };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

/** The text the SEP-1034/SEP-1330 scenarios expect back from an elicitation. */
const completed = (answer: ElicitationResult): string =>
  `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;

/** A form asking for a name. */
const nameForm = (message: string): FormElicitationRequest => ({
  message,
  requestedSchema: {
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
  },
});

/** A form asking for a yes/no `ok`. */
const okForm = (message: string): FormElicitationRequest => ({
  message,
  requestedSchema: {
    type: "object",
    properties: { ok: { type: "boolean" } },
    required: ["ok"],
  },
});

/** A one-message sampling request. */
const question = (text: string, maxTokens: number): SamplingRequest => ({
  messages: [{ role: "user", content: { type: "text", text } }],
  maxTokens,
});

/** The tools the suite calls, with their handlers. */
const TOOLS: { spec: ToolSpec; handler: ToolHandler }[] = [
  // The tasks extension (alpha suite, tasks-*, SEP-2663): greet never makes a task; slow_compute
  // and confirm_delete make one for a client that takes it (and run while the call waits
  // otherwise); failing_job, protocol_error_job, multi_input only run as tasks.
  {
    spec: fixtureSpec("greet", "Greets by name, at once (never a task).", {
      inputSchema: objectOf({ name: { type: "string" } }),
    }),
    handler: (args) => `Hello, ${args.name}!`,
  },
  {
    spec: fixtureSpec("slow_compute", "Sleeps `seconds` seconds, then answers (a task).", {
      inputSchema: objectOf({ seconds: { type: "number" }, label: { type: "string" } }),
    }),
    handler: (args) =>
      asTask({
        work: async (task) => {
          await sleep(Number(args.seconds ?? 0) * 1000, task.signal);
          return `Computed ${args.label ?? "something"} after ${args.seconds ?? 0}s`;
        },
        pollIntervalMs: 200,
      }),
  },
  {
    spec: fixtureSpec("failing_job", "Fails as a tool after about a second (only as a task)."),
    handler: () =>
      asTask({
        required: true,
        work: async (task) => {
          await sleep(1000, task.signal);
          throw new Error("the job failed");
        },
        pollIntervalMs: 200,
      }),
  },
  {
    spec: fixtureSpec("protocol_error_job", "Fails with a protocol error (only as a task)."),
    handler: () =>
      asTask({
        required: true,
        work: () => {
          throw new JsonRpcError(ERROR_CODES.INTERNAL_ERROR, "Internal error: the job crashed");
        },
        pollIntervalMs: 200,
      }),
  },
  {
    // Not required: it lists first, and http-header-validation calls the first tool without the
    // extension, expecting an answer (here a tool error: the work cannot ask outside a task).
    spec: fixtureSpec("confirm_delete", "Asks to confirm, then deletes (a task).", {
      inputSchema: objectOf({ filename: { type: "string" } }),
    }),
    handler: (args) =>
      asTask({
        work: async (task) => {
          const answer = await task.elicit(okForm(`Delete ${args.filename}?`), { key: "confirm" });
          return answer.action === "accept" ? `Deleted ${args.filename}` : "Nothing deleted";
        },
        pollIntervalMs: 200,
      }),
  },
  {
    spec: fixtureSpec("multi_input", "Asks two things at once (only as a task)."),
    handler: () =>
      asTask({
        required: true,
        work: async (task) => {
          const [a, b] = await Promise.all([
            task.elicit(nameForm("First name?"), { key: "first" }),
            task.elicit(nameForm("Second name?"), { key: "second" }),
          ]);
          return `Got ${a.content?.name} and ${b.content?.name}`;
        },
        pollIntervalMs: 200,
      }),
  },
  {
    // MRTR first (an input-required round for user_name), then a task on the final round.
    spec: fixtureSpec("test_tool_with_task", "Asks a name, then greets as a task.", {
      uses: ["elicitation"],
    }),
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(nameForm("What is your name?"), { key: "user_name" });
      return asTask({
        required: true,
        work: () => `Hello, ${answer.content?.name ?? "nobody"}!`,
        pollIntervalMs: 200,
      });
    },
  },
  {
    spec: fixtureSpec("test_simple_text", "Returns a fixed text."),
    handler: () => ({
      content: [{
        type: "text",
        text: "This is a simple text response for testing.",
      }],
    }),
  },
  {
    spec: fixtureSpec("test_image_content", "Returns a 1x1 PNG image."),
    handler: () => ({
      content: [{ type: "image", data: PNG, mimeType: "image/png" }],
    }),
  },
  {
    spec: fixtureSpec("test_audio_content", "Returns a short WAV clip."),
    handler: () => ({
      content: [{ type: "audio", data: wav(), mimeType: "audio/wav" }],
    }),
  },
  {
    spec: fixtureSpec(
      "test_embedded_resource",
      "Returns an embedded text resource.",
    ),
    handler: () => ({
      content: [{
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      }],
    }),
  },
  {
    spec: fixtureSpec(
      "test_multiple_content_types",
      "Returns text, an image and a resource.",
    ),
    handler: () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  },
  {
    spec: fixtureSpec(
      "test_tool_with_logging",
      "Sends three log messages while it runs.",
    ),
    handler: async (_args, ctx) => {
      ctx.log("info", "Tool execution started");
      await sleep(50, ctx.signal);
      ctx.log("info", "Tool processing data");
      await sleep(50, ctx.signal);
      ctx.log("info", "Tool execution completed");
      return "Tool with logging executed";
    },
  },
  {
    // 2026-07-28 (alpha suite, server-stateless): logs go out only at or above the request's
    // `_meta["io.modelcontextprotocol/logLevel"]`, and not at all when the request sets none.
    spec: fixtureSpec(
      "test_logging_tool",
      "Logs one message at each of debug, info and warning, then returns.",
    ),
    handler: (_args, ctx) => {
      ctx.log("debug", "test_logging_tool: debug message", "test_logging_tool");
      ctx.log("info", "test_logging_tool: info message", "test_logging_tool");
      ctx.log(
        "warning",
        "test_logging_tool: warning message",
        "test_logging_tool",
      );
      return "Logging tool executed";
    },
  },
  {
    // 2026-07-28 (alpha suite, server-stateless): needs a client capability (sampling) and
    // answers -32021 (HTTP 400) when the request's envelope does not declare it.
    spec: fixtureSpec(
      "test_missing_capability",
      "Needs the sampling capability.",
    ),
    handler: (_args, ctx) => {
      if (!Object.hasOwn(ctx.clientCapabilities, "sampling")) {
        throw new MissingClientCapabilityError({ sampling: {} });
      }
      return "The client declared sampling";
    },
  },
  {
    spec: fixtureSpec("test_error_handling", "Always fails."),
    handler: () => {
      throw new Error("This tool intentionally returns an error for testing");
    },
  },
  {
    spec: fixtureSpec(
      "test_tool_with_progress",
      "Reports progress 0, 50 and 100 of 100.",
    ),
    handler: async (_args, ctx) => {
      for (const step of [0, 50, 100]) {
        ctx.progress(step, 100);
        await sleep(50, ctx.signal);
      }
      return "Tool with progress executed";
    },
  },
  // Server-initiated requests (0.1.16: tools-call-sampling, tools-call-elicitation,
  // elicitation-sep1034-defaults, elicitation-sep1330-enums). In the handshake era each ask is a
  // request to the client on the call's stream; the scenarios answer it and read the tool's text.
  {
    spec: fixtureSpec(
      "test_sampling",
      "Asks the client's model to answer a prompt.",
      {
        inputSchema: {
          type: "object",
          properties: {
            prompt: {
              type: "string",
              description: "The prompt to send to the LLM",
            },
          },
          required: ["prompt"],
          additionalProperties: false,
        } as typeof NO_ARGUMENTS,
        uses: ["sampling"],
      },
    ),
    handler: async (args, ctx) => {
      const answer = await ctx.sample({
        messages: [{
          role: "user",
          content: { type: "text", text: String(args.prompt) },
        }],
        maxTokens: 100,
      });
      const content = answer.content as { type: string; text?: string };
      return `LLM response: ${content.text ?? JSON.stringify(content)}`;
    },
  },
  {
    spec: fixtureSpec(
      "test_elicitation",
      "Asks the user for a username and an email address.",
      {
        inputSchema: {
          type: "object",
          properties: {
            message: {
              type: "string",
              description: "The message to show the user",
            },
          },
          required: ["message"],
          additionalProperties: false,
        } as typeof NO_ARGUMENTS,
        uses: ["elicitation"],
      },
    ),
    handler: async (args, ctx) => {
      const answer = await ctx.elicit({
        message: String(args.message),
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      });
      return `User response: action=${answer.action}, content=${JSON.stringify(answer.content)}`;
    },
  },
  {
    // SEP-1034: a default for each primitive type.
    spec: fixtureSpec(
      "test_elicitation_sep1034_defaults",
      "Asks for a form whose fields all have defaults.",
      { uses: ["elicitation"] },
    ),
    handler: async (_args, ctx) =>
      completed(
        await ctx.elicit({
          message: "Please review your details",
          requestedSchema: {
            type: "object",
            properties: {
              name: { type: "string", title: "Name", default: "John Doe" },
              age: { type: "integer", title: "Age", default: 30 },
              score: { type: "number", title: "Score", default: 95.5 },
              status: {
                type: "string",
                title: "Status",
                enum: ["active", "inactive", "pending"],
                default: "active",
              },
              verified: { type: "boolean", title: "Verified", default: true },
            },
          },
        }),
      ),
  },
  {
    // SEP-1330: the five enum forms (untitled/titled single-select, the legacy enumNames,
    // untitled/titled multi-select).
    spec: fixtureSpec(
      "test_elicitation_sep1330_enums",
      "Asks for a form with every kind of enum field.",
      { uses: ["elicitation"] },
    ),
    handler: async (_args, ctx) =>
      completed(
        await ctx.elicit({
          message: "Please make your choices",
          requestedSchema: {
            type: "object",
            properties: {
              untitledSingle: {
                type: "string",
                enum: ["option1", "option2", "option3"],
              },
              titledSingle: {
                type: "string",
                oneOf: [
                  { const: "value1", title: "First Option" },
                  { const: "value2", title: "Second Option" },
                  { const: "value3", title: "Third Option" },
                ],
              },
              legacyEnum: {
                type: "string",
                enum: ["opt1", "opt2", "opt3"],
                enumNames: ["Option One", "Option Two", "Option Three"],
              },
              untitledMulti: {
                type: "array",
                items: {
                  type: "string",
                  enum: ["option1", "option2", "option3"],
                },
              },
              titledMulti: {
                type: "array",
                items: {
                  anyOf: [
                    { const: "value1", title: "First Choice" },
                    { const: "value2", title: "Second Choice" },
                    { const: "value3", title: "Third Choice" },
                  ],
                },
              },
            },
          },
        }),
      ),
  },
  // 2026-07-28 (alpha suite, input-required-result-*): the same asks end the call with an
  // input-required result; the client calls again with `inputResponses` and the sealed
  // `requestState`, and the handler runs again from the start. The scenarios name the keys.
  {
    spec: fixtureSpec(
      "test_input_required_result_elicitation",
      "Asks the user for a name.",
      {
        uses: ["elicitation"],
      },
    ),
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(nameForm("What is your name?"), {
        key: "user_name",
      });
      return `Hello, ${answer.content?.name ?? `(${answer.action})`}!`;
    },
  },
  {
    spec: fixtureSpec(
      "test_input_required_result_sampling",
      "Asks the client's model a question.",
      {
        uses: ["sampling"],
      },
    ),
    handler: async (_args, ctx) => {
      const answer = await ctx.sample(
        question("What is the capital of France?", 100),
        {
          key: "capital_question",
        },
      );
      return `The model answered: ${(answer.content as { text?: string }).text ?? ""}`;
    },
  },
  {
    spec: fixtureSpec(
      "test_input_required_result_list_roots",
      "Asks the client for its roots.",
      {
        uses: ["roots"],
      },
    ),
    handler: async (_args, ctx) => {
      const roots = await ctx.listRoots({ key: "client_roots" });
      return `Roots: ${roots.map((r) => r.uri).join(", ")}`;
    },
  },
  {
    // The state is sealed and checked by the server before the handler runs again: a handler
    // that gets its answer got it with a valid state.
    spec: fixtureSpec(
      "test_input_required_result_request_state",
      "Asks the user to confirm.",
      {
        uses: ["elicitation"],
      },
    ),
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(okForm("Please confirm"), {
        key: "confirm",
      });
      return `state-ok: ${answer.action}, ok=${answer.content?.ok}`;
    },
  },
  {
    spec: fixtureSpec(
      "test_input_required_result_tampered_state",
      "Asks the user to confirm (its requestState is sealed).",
      { uses: ["elicitation"] },
    ),
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(okForm("Please confirm"), {
        key: "confirm",
      });
      return `Confirmed: ${answer.action}`;
    },
  },
  {
    // Asks made together go out in one round.
    spec: fixtureSpec(
      "test_input_required_result_multiple_inputs",
      "Asks the user, the client's model and the client's roots at once.",
      { uses: ["elicitation", "sampling", "roots"] },
    ),
    handler: async (_args, ctx) => {
      const [name, greeting, roots] = await Promise.all([
        ctx.elicit(nameForm("What is your name?"), { key: "user_name" }),
        ctx.sample(question("Generate a greeting", 50), { key: "greeting" }),
        ctx.listRoots({ key: "client_roots" }),
      ]);
      const text = (greeting.content as { text?: string }).text;
      return `${text} ${name.content?.name} (${roots.length} roots)`;
    },
  },
  {
    // Asks made one after the other go out in rounds, each with a new state.
    spec: fixtureSpec(
      "test_input_required_result_multi_round",
      "Asks the user two questions, one after the other.",
      { uses: ["elicitation"] },
    ),
    handler: async (_args, ctx) => {
      const name = await ctx.elicit(nameForm("Step 1: What is your name?"), {
        key: "step1",
      });
      const color = await ctx.elicit({
        message: "Step 2: What is your favorite color?",
        requestedSchema: {
          type: "object",
          properties: { color: { type: "string" } },
          required: ["color"],
        },
      }, { key: "step2" });
      return `${name.content?.name} likes ${color.content?.color}`;
    },
  },
  {
    // Asks only what the request's envelope declares: never an input request the client cannot
    // answer.
    spec: fixtureSpec(
      "test_input_required_result_capabilities",
      "Asks the user and the client's model, each only when the client declared it.",
      { uses: ["elicitation", "sampling"] },
    ),
    handler: async (_args, ctx) => {
      const can = (name: string) => Object.hasOwn(ctx.clientCapabilities, name);
      const asked: Promise<unknown>[] = [];
      if (can("elicitation")) {
        asked.push(ctx.elicit(nameForm("What is your name?")));
      }
      if (can("sampling")) asked.push(ctx.sample(question("Say hello", 20)));
      await Promise.all(asked);
      return `Asked ${asked.length} input request(s)`;
    },
  },
  {
    // 2026-07-28 (server-stateless): the call's response stream carries no request to the
    // client, only its result (here an input-required one).
    spec: fixtureSpec(
      "test_streaming_elicitation",
      "Asks the user for a name.",
      {
        uses: ["elicitation"],
      },
    ),
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(nameForm("What is your name?"));
      return `Hello, ${answer.content?.name ?? `(${answer.action})`}!`;
    },
  },
  {
    spec: fixtureSpec(
      "json_schema_2020_12_tool",
      "Tool with JSON Schema 2020-12 features",
      {
        inputSchema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          $defs: {
            address: {
              $anchor: "address",
              type: "object",
              properties: {
                street: { type: "string" },
                city: { type: "string" },
              },
            },
          },
          properties: {
            name: { type: "string" },
            address: { $ref: "#/$defs/address" },
          },
          additionalProperties: false,
          // SEP-2106 (alpha suite, json-schema-2020-12): composition and conditional keywords.
          allOf: [{
            anyOf: [{ required: ["name"] }, { required: ["address"] }],
          }],
          if: { required: ["address"] },
          then: { properties: { address: { required: ["city"] } } },
          else: { properties: { name: { minLength: 1 } } },
        } as typeof NO_ARGUMENTS,
      },
    ),
    handler: (args) => ({ received: args }),
  },
];

const RESOURCES: ResourceProvider = {
  list: () => [
    {
      uri: "test://static-text",
      name: "static-text",
      description: "A static text resource.",
      mimeType: "text/plain",
    },
    {
      uri: "test://static-binary",
      name: "static-binary",
      description: "A static binary resource (a PNG).",
      mimeType: "image/png",
    },
  ],
  templates: () => [{
    uriTemplate: "test://template/{id}/data",
    name: "template-data",
    description: "Data for an id.",
    mimeType: "application/json",
  }],
  read: (uri) => {
    if (uri === "test://static-text") {
      return [{
        uri,
        mimeType: "text/plain",
        text: "This is the content of the static text resource.",
      }];
    }
    if (uri === "test://static-binary") {
      return [{ uri, mimeType: "image/png", blob: PNG }];
    }
    const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
    if (m) {
      const id = decodeURIComponent(m[1]);
      return [{
        uri,
        mimeType: "application/json",
        text: JSON.stringify({
          id,
          templateTest: true,
          data: `Data for ID: ${id}`,
        }),
      }];
    }
    return undefined;
  },
};

const PROMPTS: PromptProvider = {
  list: () => [
    { name: "test_simple_prompt", description: "A prompt without arguments." },
    {
      name: "test_prompt_with_arguments",
      description: "A prompt with two arguments.",
      arguments: [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ],
    },
    {
      name: "test_prompt_with_embedded_resource",
      description: "A prompt embedding a resource.",
      arguments: [{
        name: "resourceUri",
        description: "The resource to embed",
        required: true,
      }],
    },
    { name: "test_prompt_with_image", description: "A prompt with an image." },
    {
      name: "test_input_required_result_prompt",
      description: "A prompt that asks the user for its context first.",
    },
  ],
  getPrompt: async ({ name, args }, context) => {
    const need = (...keys: string[]) => {
      const missing = keys.filter((k) => args[k] === undefined);
      if (missing.length) {
        throw new PromptArgumentError(
          `${name} needs argument ${missing.join(", ")}`,
        );
      }
    };
    const user = (content: PromptMessage["content"]): PromptMessage => ({
      role: "user",
      content,
    });
    switch (name) {
      case "test_simple_prompt":
        return {
          messages: [
            user({
              type: "text",
              text: "This is a simple prompt for testing.",
            }),
          ],
        };
      case "test_prompt_with_arguments":
        need("arg1", "arg2");
        return {
          messages: [user({
            type: "text",
            text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`,
          })],
        };
      case "test_prompt_with_embedded_resource":
        need("resourceUri");
        return {
          messages: [
            user({
              type: "resource",
              resource: {
                uri: args.resourceUri,
                mimeType: "text/plain",
                text: "Embedded resource content for testing.",
              },
            }),
            user({
              type: "text",
              text: "Please process the embedded resource above.",
            }),
          ],
        };
      case "test_prompt_with_image":
        return {
          messages: [
            user({ type: "image", data: PNG, mimeType: "image/png" }),
            user({ type: "text", text: "Please analyze the image above." }),
          ],
        };
      case "test_input_required_result_prompt": {
        // 2026-07-28 (alpha suite, input-required-result-non-tool-request): prompts/get may end
        // with an input-required result as tools/call does.
        const answer = await context.elicit({
          message: "What context should the prompt use?",
          requestedSchema: {
            type: "object",
            properties: { context: { type: "string" } },
            required: ["context"],
          },
        }, { key: "user_context" });
        const text = answer.content?.context ?? `(${answer.action})`;
        return {
          messages: [
            user({ type: "text", text: `Context for this prompt: ${text}` }),
          ],
        };
      }
    }
    return undefined;
  },
  complete: (name, argument, value) =>
    name === "test_prompt_with_arguments" && argument === "arg1"
      ? ["test", "testing", "tested"].filter((v) => v.startsWith(value))
      : [],
};

/** What 2025-11-25's tools/list says of the task tools (as their handlers behave). */
const TASK_SUPPORT: Record<string, "optional" | "required" | undefined> = {
  slow_compute: "optional",
  failing_job: "required",
  protocol_error_job: "required",
  confirm_delete: "optional",
  multi_input: "required",
  test_tool_with_task: "required",
};

/** Admits a request with no credential as {@linkcode CONFORMANCE_PRINCIPAL}; refuses any token. */
const authenticate: Authenticate = (request) =>
  request.headers.authorization === undefined ||
    bearerToken(request.headers.authorization) === undefined
    ? CONFORMANCE_PRINCIPAL
    : undefined;

/** The fixture server: the estate and its handlers. */
export function fixtureServer(): McpServer {
  const registry = new ToolRegistry();
  const handlers = new Map<string, ToolHandler>();
  for (const { spec, handler } of TOOLS) {
    registry.publish(spec);
    handlers.set(spec.name, handler);
  }
  // 2026-07-28 (alpha suite, server-stateless): `test_trigger_tool_change` changes the estate for
  // real, publishing the next patch version of `test_changing_tool`, so an open
  // `subscriptions/listen` stream (toolsListChanged) gets `notifications/tools/list_changed`.
  let patch = 0;
  const changing = () =>
    fixtureSpec(
      "test_changing_tool",
      "A tool whose versions test_trigger_tool_change publishes.",
    );
  registry.publish(changing());
  handlers.set("test_changing_tool", () => "Changing tool executed");
  const trigger = fixtureSpec(
    "test_trigger_tool_change",
    "Publishes the next patch version of test_changing_tool (the tool list changes).",
  );
  registry.publish(trigger);
  handlers.set(trigger.name, () => {
    const version = `1.0.${++patch}`;
    registry.publish({ ...changing(), version });
    return `Published test_changing_tool@${version}`;
  });
  return new McpServer({
    registry,
    handlerFor: (spec) => handlers.get(spec.name),
    resources: RESOURCES,
    prompts: PROMPTS,
    serverInfo: { name: "tool-estate-conformance-fixture", version: "0.1.0" },
    tasks: { taskSupport: (spec) => TASK_SUPPORT[spec.name] },
  });
}

/** A running fixture: its URL, and how to stop it. */
export interface RunningFixture {
  /** The MCP endpoint, e.g. `http://127.0.0.1:49152/mcp`. */
  url: string;
  /** Stops the HTTP server and the MCP server. */
  close(): Promise<void>;
}

/**
 * Serves the fixture on 127.0.0.1.
 *
 * @param port The port; 0 (the default) picks a free one.
 * @returns The running fixture.
 */
export async function startFixture(port = 0): Promise<RunningFixture> {
  const server = fixtureServer();
  const http: McpHttpServer = await serveHttp(server, { authenticate, port });
  return {
    url: http.url,
    close: async () => {
      await http.close();
      server.close();
    },
  };
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--port");
  const fixture = await startFixture(at === -1 ? 0 : Number(Deno.args[at + 1]));
  console.log(fixture.url);
  const stop = () => fixture.close().then(() => Deno.exit(0));
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
