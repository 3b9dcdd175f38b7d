/**
 * A real LSP client for the extension's language server: builds `extension/dist/server.js` when
 * it is missing or older than its sources (installing `extension/node_modules` when needed),
 * spawns it with Node over stdio, and speaks LSP with vscode-languageserver-protocol. Also makes
 * scratch workspaces: a copy of `corpus/` plus drafts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic as LspDiagnostic } from "vscode-languageserver-protocol";
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { ensureExtensionBuilt } from "../scripts/_extension_build.ts";

/** The repository's root. */
export const ROOT: string = path.resolve(
  new URL("..", import.meta.url).pathname,
);
const EXTENSION = path.join(ROOT, "extension");
/** The bundled server the tests run. */
export const SERVER: string = path.join(EXTENSION, "dist", "server.js");

let building: Promise<void> | undefined;

/**
 * Builds the server bundle when it is missing or older than its sources (`npm ci` in
 * `extension/` first when needed; see `scripts/_extension_build.ts`), once per process. When the
 * build fails, the first caller gets why; later callers get one line pointing to it, not the same
 * trace again.
 *
 * @throws {Error} When the extension's npm dependencies cannot be installed or the build fails.
 */
export async function ensureServerBuilt(): Promise<void> {
  if (building) {
    try {
      await building;
    } catch {
      const e = new Error(
        `${SERVER} could not be built: the first LSP test that needed it says why`,
      );
      e.stack = `Error: ${e.message}`;
      throw e;
    }
    return;
  }
  building = ensureExtensionBuilt({ root: ROOT }).then(() => {});
  await building;
}

/** A scratch workspace: `corpus/` copied in, drafts written under `drafts/`. */
export interface Workspace {
  /** The workspace folder. */
  dir: string;
  /** The estate's copy. */
  estate: string;
  /** Writes a draft file and returns its path. */
  write(file: string, content: unknown): string;
  /** Removes the workspace. */
  remove(): void;
}

/**
 * Makes a scratch workspace under `.scratch/` with a copy of `corpus/` as its estate.
 *
 * @returns The workspace.
 */
export function makeWorkspace(): Workspace {
  fs.mkdirSync(path.join(ROOT, ".scratch"), { recursive: true });
  const dir = fs.mkdtempSync(path.join(ROOT, ".scratch", "lsp-"));
  const estate = path.join(dir, "corpus");
  fs.cpSync(path.join(ROOT, "corpus"), estate, { recursive: true });
  fs.mkdirSync(path.join(dir, "drafts"));
  return {
    dir,
    estate,
    write(file, content) {
      const p = path.join(dir, "drafts", file);
      fs.writeFileSync(
        p,
        typeof content === "string" ? content : JSON.stringify(content, null, 2) + "\n",
      );
      return p;
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A published spec from the repository's corpus, as a fresh object. */
export function corpusSpec(
  name: string,
  version: string,
): Record<string, unknown> {
  return JSON.parse(
    fs.readFileSync(
      path.join(ROOT, "corpus", "tools", name, `${version}.json`),
      "utf8",
    ),
  );
}

/** A diagnostic as this server sends it: LSP's, with a plain-text message. */
export interface Diagnostic extends Omit<LspDiagnostic, "message"> {
  /** The message. */
  message: string;
}

/** One `textDocument/publishDiagnostics`. */
export interface Published {
  /** The document. */
  uri: string;
  /** The version it was computed for, when the server says. */
  version?: number;
  /** The diagnostics. */
  diagnostics: Diagnostic[];
}

/** A `toolEstate/status` notification. */
export interface Status {
  /** The document. */
  uri: string;
  /** The short text. */
  text: string;
  /** The longer text. */
  detail: string;
  /** The worst finding. */
  severity: string;
}

/** A running server and the client side of its connection. */
export interface LspSession {
  /** The connection (send requests and notifications with it). */
  connection: MessageConnection;
  /** The server process. */
  process: ChildProcess;
  /** Every publishDiagnostics so far, in order. */
  published: Published[];
  /** Every `toolEstate/status` so far, in order. */
  statuses: Status[];
  /** Every `client/registerCapability` registration so far. */
  registrations: { method: string; registerOptions?: unknown }[];
  /** What the server logged (`window/logMessage`). */
  logs: string[];
  /** The next publishDiagnostics for a URI (call before the action that causes it). */
  nextDiagnostics(uri: string, timeoutMs?: number): Promise<Published>;
  /** Opens a file by path; resolves with its first diagnostics. */
  open(file: string, text?: string): Promise<Published>;
  /** Shuts the server down (shutdown, exit) and waits for the process to end; its exit code. */
  close(): Promise<number | null>;
}

/** Options for {@linkcode startServer}. */
export interface StartOptions {
  /** `toolEstate.*` settings, passed as initializationOptions. */
  settings?: Record<string, unknown>;
  /** The server's debounce for checks while typing. Default 0 here (250 in the editor). */
  debounceMs?: number;
  /** Whether the client offers dynamic registration of file watchers. Default true. */
  watchers?: boolean;
}

/**
 * Spawns `node extension/dist/server.js --stdio` and initializes it with a workspace folder.
 *
 * @param workspace The workspace folder.
 * @param options Settings and client capabilities.
 * @returns The session, initialized.
 */
export async function startServer(
  workspace: string,
  options: StartOptions = {},
): Promise<LspSession> {
  await ensureServerBuilt();
  const child = spawn("node", [SERVER, "--stdio"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const published: Published[] = [];
  const statuses: Status[] = [];
  const registrations: { method: string; registerOptions?: unknown }[] = [];
  const logs: string[] = [];
  const waiters: { uri: string; resolve: (p: Published) => void }[] = [];
  connection.onNotification(
    "textDocument/publishDiagnostics",
    (p: Published) => {
      published.push(p);
      const i = waiters.findIndex((w) => w.uri === p.uri);
      if (i >= 0) waiters.splice(i, 1)[0].resolve(p);
    },
  );
  connection.onNotification("toolEstate/status", (s: Status) => {
    statuses.push(s);
  });
  connection.onNotification("window/logMessage", (m: { message: string }) => {
    logs.push(m.message);
  });
  connection.onRequest(
    "client/registerCapability",
    (p: { registrations: { method: string; registerOptions?: unknown }[] }) => {
      registrations.push(...p.registrations);
      return null;
    },
  );
  connection.onRequest("client/unregisterCapability", () => null);
  connection.listen();
  const uri = (file: string) => `file://${file}`;
  let version = 0;
  await connection.sendRequest("initialize", {
    processId: null,
    rootUri: uri(workspace),
    workspaceFolders: [{ uri: uri(workspace), name: path.basename(workspace) }],
    capabilities: {
      workspace: {
        workspaceFolders: true,
        didChangeWatchedFiles: {
          dynamicRegistration: options.watchers ?? true,
          relativePatternSupport: options.watchers ?? true,
        },
      },
      textDocument: {
        publishDiagnostics: { relatedInformation: false, versionSupport: true },
        codeAction: {
          codeActionLiteralSupport: {
            codeActionKind: { valueSet: ["quickfix"] },
          },
        },
        hover: { contentFormat: ["markdown", "plaintext"] },
        synchronization: { didSave: true },
      },
    },
    initializationOptions: {
      settings: options.settings ?? {},
      debounceMs: options.debounceMs ?? 0,
    },
  });
  await connection.sendNotification("initialized", {});
  const session: LspSession = {
    connection,
    process: child,
    published,
    statuses,
    registrations,
    logs,
    nextDiagnostics(uri, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.findIndex((w) => w.resolve === done);
          if (i >= 0) waiters.splice(i, 1);
          reject(
            new Error(
              `no diagnostics for ${uri} within ${timeoutMs} ms; stderr: ${stderr}`,
            ),
          );
        }, timeoutMs);
        const done = (p: Published) => {
          clearTimeout(timer);
          resolve(p);
        };
        waiters.push({ uri, resolve: done });
      });
    },
    async open(file, text) {
      const next = session.nextDiagnostics(uri(file));
      await connection.sendNotification("textDocument/didOpen", {
        textDocument: {
          uri: uri(file),
          languageId: "json",
          version: ++version,
          text: text ?? fs.readFileSync(file, "utf8"),
        },
      });
      return await next;
    },
    async close() {
      await connection.sendRequest("shutdown");
      await connection.sendNotification("exit");
      const code = await exited;
      connection.dispose();
      return code;
    },
  };
  return session;
}

/** The `file://` URI of a path, as the session sends it. */
export function fileUri(file: string): string {
  return `file://${file}`;
}

/** The text a one-line range covers. */
export function textAt(
  text: string,
  range: {
    start: { line: number; character: number };
    end: { line: number; character: number };
  },
): string {
  const lines = text.split("\n");
  if (range.start.line !== range.end.line) throw new Error("multi-line range");
  return lines[range.start.line].slice(
    range.start.character,
    range.end.character,
  );
}
