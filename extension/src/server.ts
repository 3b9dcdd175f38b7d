/**
 * The tool-estate language server: checks open `*.tool.json` drafts against the estate folder
 * with the library's `checkDraft` (what `estate check` prints), adds what the gateway's drift log
 * says of the tool (`driftNotices`: quarantined, a changed description, offered by another
 * server), and maps the result to LSP. The
 * placing of findings, the fix, the hover and the status are in `check_file.ts`; this file only
 * wires documents, settings, watchers and requests.
 *
 * Beyond standard LSP: the notification `toolEstate/status` (`{ uri, text, detail, severity }`,
 * after every check of an open file) and the request `toolEstate/checkAll` (checks every tool
 * file in the workspace and publishes the diagnostics; returns `CheckAllResult`).
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CodeAction,
  CodeActionKind,
  type Connection,
  createConnection,
  DidChangeWatchedFilesNotification,
  type Disposable,
  type InitializeParams,
  type InitializeResult,
  MarkupKind,
  ProposedFeatures,
  type Range,
  TextDocuments,
  TextDocumentSyncKind,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { DRIFT_FILE } from "../../lib/store/drift_log.ts";
import { checkToolFile, type FileCheck, type FileStatus } from "./check_file.ts";
import { EstateSnapshot } from "./estate.ts";
import { matchesGlob } from "./glob.ts";
import { isOnVersion, parseToolFile } from "../../lib/report/locations.ts";

/** The `toolEstate.*` settings the server reads. */
export interface Settings {
  /** The estate folder, relative to the workspace folder (or absolute). */
  estateFolder: string;
  /** Glob of the tool files, relative to the workspace folder. */
  files: string;
  /** Check while typing (debounced), or when the file is opened and saved. */
  run: "onType" | "onSave";
}

/** The answer to `toolEstate/checkAll`. */
export interface CheckAllResult {
  /** How many tool files were checked. */
  checked: number;
  /** How many have at least one error. */
  failed: number;
  /** Per file: its URI and how many errors and warnings. */
  files: { uri: string; errors: number; warnings: number }[];
}

/** The `toolEstate/status` notification's parameters. */
export interface StatusParams extends FileStatus {
  /** The document. */
  uri: string;
}

const DEFAULTS: Settings = {
  estateFolder: "corpus",
  files: "**/*.tool.json",
  run: "onType",
};

function readSettings(value: unknown): Settings {
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  return {
    estateFolder: typeof v.estateFolder === "string" && v.estateFolder.trim()
      ? v.estateFolder
      : DEFAULTS.estateFolder,
    files: typeof v.files === "string" && v.files.trim() ? v.files : DEFAULTS.files,
    run: v.run === "onSave" ? "onSave" : "onType",
  };
}

function toPath(uri: string): string | undefined {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** The tool files under a folder, skipping dot folders, dependencies and build output. */
function findToolFiles(folder: string, glob: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (
        entry.name.startsWith(".") || entry.name === "node_modules" ||
        entry.name === "dist"
      ) {
        continue;
      }
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (
        entry.isFile() &&
        matchesGlob(glob, path.relative(folder, p).split(path.sep).join("/"))
      ) {
        out.push(p);
      }
    }
  };
  walk(folder);
  return out.sort();
}

/**
 * Serves one connection until it closes.
 *
 * @param connection The LSP connection (stdio, for VS Code).
 */
function serve(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  let settings: Settings = DEFAULTS;
  let folders: string[] = [];
  let debounceMs = 250;
  let dynamicWatchers = false;
  let foldersChange = false;
  let watcherRegistration: Promise<Disposable> | undefined;
  const estates = new Map<
    string,
    { snapshot: EstateSnapshot; problem?: string }
  >();
  const results = new Map<string, { version: number; check: FileCheck }>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  let recheckTimer: ReturnType<typeof setTimeout> | undefined;

  /** The workspace folder a file belongs to: the innermost one holding it, else its own folder. */
  const folderOf = (file: string): string =>
    folders.filter((f) => inside(f, file)).sort((a, b) => b.length - a.length)[0] ??
      path.dirname(file);

  const estateDirOf = (folder: string): string => path.resolve(folder, settings.estateFolder);

  const estateFor = (
    dir: string,
  ): { snapshot: EstateSnapshot; problem?: string } => {
    let entry = estates.get(dir);
    if (!entry) {
      try {
        entry = { snapshot: EstateSnapshot.load(dir) };
      } catch (e) {
        entry = {
          snapshot: EstateSnapshot.empty(dir),
          problem: (e as Error).message,
        };
      }
      estates.set(dir, entry);
    }
    return entry;
  };

  const checkText = (uri: string, text: string): FileCheck => {
    const file = toPath(uri);
    const folder = file ? folderOf(file) : folders[0] ?? process.cwd();
    const dir = estateDirOf(folder);
    const estate = estateFor(dir);
    const rel = path.relative(folder, dir);
    const label = rel && !rel.startsWith("..") && !path.isAbsolute(rel)
      ? rel.split(path.sep).join("/") + "/"
      : dir;
    return checkToolFile(text, {
      check: (spec) => estate.snapshot.check(spec),
      drift: (name) => estate.snapshot.driftNotices(name),
      estateLabel: label,
      estateProblem: estate.problem,
      fileLabel: file ? path.basename(file) : uri,
    });
  };

  const validate = (doc: TextDocument): FileCheck => {
    const timer = timers.get(doc.uri);
    if (timer) clearTimeout(timer);
    timers.delete(doc.uri);
    const check = checkText(doc.uri, doc.getText());
    results.set(doc.uri, { version: doc.version, check });
    // The status first: a client that waits for the diagnostics has both.
    connection.sendNotification("toolEstate/status", {
      uri: doc.uri,
      ...check.status,
    });
    connection.sendDiagnostics({
      uri: doc.uri,
      version: doc.version,
      diagnostics: check.diagnostics,
    });
    return check;
  };

  const safely = (what: string, f: () => void): void => {
    try {
      f();
    } catch (e) {
      connection.console.error(`${what}: ${(e as Error).stack ?? e}`);
    }
  };

  const schedule = (doc: TextDocument): void => {
    const old = timers.get(doc.uri);
    if (old) clearTimeout(old);
    timers.set(
      doc.uri,
      setTimeout(() => {
        timers.delete(doc.uri);
        const current = documents.get(doc.uri);
        if (current) safely(`checking ${doc.uri}`, () => validate(current));
      }, debounceMs),
    );
  };

  /** The check of an open document as it is now (checked again if it changed since). */
  const current = (
    uri: string,
  ): { doc: TextDocument; check: FileCheck } | undefined => {
    const doc = documents.get(uri);
    if (!doc) return undefined;
    const r = results.get(uri);
    return {
      doc,
      check: r && r.version === doc.version ? r.check : validate(doc),
    };
  };

  const recheckAll = (): void => {
    if (recheckTimer) clearTimeout(recheckTimer);
    recheckTimer = setTimeout(() => {
      recheckTimer = undefined;
      for (const doc of documents.all()) {
        safely(`checking ${doc.uri}`, () => validate(doc));
      }
    }, Math.min(debounceMs, 100));
  };

  /** Asks the client to watch each workspace folder's estate folder (dynamic registration). */
  const watchEstates = async (): Promise<void> => {
    if (!dynamicWatchers) return;
    const previous = watcherRegistration;
    watcherRegistration = undefined;
    if (previous) (await previous).dispose();
    const dirs = [...new Set(folders.map(estateDirOf))];
    watcherRegistration = connection.client.register(
      DidChangeWatchedFilesNotification.type,
      {
        watchers: dirs.map((dir) => ({
          globPattern: { baseUri: pathToFileURL(dir).href, pattern: "**/*" },
        })),
      },
    );
    await watcherRegistration;
  };

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    const options = (params.initializationOptions ?? {}) as Record<
      string,
      unknown
    >;
    settings = readSettings(options.settings);
    if (typeof options.debounceMs === "number" && options.debounceMs >= 0) {
      debounceMs = options.debounceMs;
    }
    folders = (params.workspaceFolders ?? [])
      .map((f) => toPath(f.uri))
      .filter((p): p is string => p !== undefined);
    if (folders.length === 0 && params.rootUri) {
      const root = toPath(params.rootUri);
      if (root) folders = [root];
    }
    foldersChange = params.capabilities.workspace?.workspaceFolders === true;
    const watched = params.capabilities.workspace?.didChangeWatchedFiles;
    dynamicWatchers = watched?.dynamicRegistration === true &&
      watched.relativePatternSupport === true;
    return {
      capabilities: {
        textDocumentSync: {
          openClose: true,
          change: TextDocumentSyncKind.Incremental,
          save: { includeText: false },
        },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        hoverProvider: true,
        workspace: {
          workspaceFolders: { supported: true, changeNotifications: true },
        },
      },
      serverInfo: { name: "tool-estate" },
    };
  });

  connection.onInitialized(() => {
    watchEstates().catch((e) => connection.console.error(`watching the estate: ${e}`));
    if (foldersChange) {
      connection.workspace.onDidChangeWorkspaceFolders((e) => {
        const removed = new Set(e.removed.map((f) => toPath(f.uri)));
        folders = [
          ...folders.filter((f) => !removed.has(f)),
          ...e.added.map((f) => toPath(f.uri)).filter((p): p is string => p !== undefined),
        ];
        watchEstates().catch((err) => connection.console.error(`watching the estate: ${err}`));
        recheckAll();
      });
    }
  });

  connection.onDidChangeConfiguration((params) => {
    const section = (params.settings as Record<string, unknown> | null)
      ?.toolEstate;
    if (section === undefined) return;
    const next = readSettings(section);
    const moved = next.estateFolder !== settings.estateFolder;
    settings = next;
    if (moved) {
      estates.clear();
      watchEstates().catch((e) => connection.console.error(`watching the estate: ${e}`));
    }
    recheckAll();
  });

  connection.onDidChangeWatchedFiles((params) => {
    const changed = params.changes.map((c) => toPath(c.uri)).filter((
      p,
    ): p is string => !!p);
    let any = false;
    for (const dir of [...estates.keys()]) {
      const mine = changed.filter((file) => inside(dir, file));
      if (!mine.length) continue;
      any = true;
      // The gateway appending to drift.jsonl needs no reload: the snapshot re-reads the log
      // when its size or time changed.
      const drift = path.join(dir, DRIFT_FILE);
      if (mine.some((file) => file !== drift)) estates.delete(dir);
    }
    if (any) recheckAll();
  });

  documents.onDidOpen((e) => safely(`checking ${e.document.uri}`, () => validate(e.document)));
  documents.onDidChangeContent((e) => {
    // didOpen also fires this; the open already checked that version.
    if (results.get(e.document.uri)?.version === e.document.version) return;
    if (settings.run === "onType") schedule(e.document);
  });
  documents.onDidSave((e) => {
    if (settings.run === "onSave") {
      safely(`checking ${e.document.uri}`, () => validate(e.document));
    }
  });
  documents.onDidClose((e) => {
    const timer = timers.get(e.document.uri);
    if (timer) clearTimeout(timer);
    timers.delete(e.document.uri);
    results.delete(e.document.uri);
    connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });

  connection.onCodeAction((params) => {
    const found = current(params.textDocument.uri);
    if (!found) return [];
    const overlaps = (r: Range): boolean =>
      !(
        r.end.line < params.range.start.line ||
        (r.end.line === params.range.start.line &&
          r.end.character < params.range.start.character) ||
        r.start.line > params.range.end.line ||
        (r.start.line === params.range.end.line &&
          r.start.character > params.range.end.character)
      );
    const actions: CodeAction[] = [];
    for (const d of found.check.diagnostics) {
      const fix = d.data?.fix;
      if (!fix || !overlaps(d.range)) continue;
      const action = CodeAction.create(fix.title, {
        changes: {
          [params.textDocument.uri]: [{
            range: fix.range,
            newText: fix.newText,
          }],
        },
      }, CodeActionKind.QuickFix);
      action.diagnostics = [d];
      action.isPreferred = true;
      actions.push(action);
    }
    return actions;
  });

  connection.onHover((params) => {
    const found = current(params.textDocument.uri);
    if (!found?.check.versionHover) return null;
    const offset = found.doc.offsetAt(params.position);
    if (!isOnVersion(parseToolFile(found.doc.getText()), offset)) return null;
    return {
      contents: { kind: MarkupKind.Markdown, value: found.check.versionHover },
    };
  });

  connection.onRequest("toolEstate/checkAll", (): CheckAllResult => {
    const result: CheckAllResult = { checked: 0, failed: 0, files: [] };
    for (const folder of folders) {
      for (const file of findToolFiles(folder, settings.files)) {
        const uri = pathToFileURL(file).href;
        const open = documents.get(uri);
        let check: FileCheck;
        try {
          check = open ? validate(open) : checkText(uri, fs.readFileSync(file, "utf8"));
        } catch (e) {
          connection.console.error(
            `checking ${file}: ${(e as Error).stack ?? e}`,
          );
          continue;
        }
        if (!open) {
          connection.sendDiagnostics({ uri, diagnostics: check.diagnostics });
        }
        const errors = check.diagnostics.filter((d) => d.severity === 1).length;
        const warnings = check.diagnostics.filter((d) => d.severity === 2).length;
        result.checked++;
        if (errors) result.failed++;
        result.files.push({ uri, errors, warnings });
      }
    }
    return result;
  });

  documents.listen(connection);
  connection.listen();
}

serve(createConnection(ProposedFeatures.all));
