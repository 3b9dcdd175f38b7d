/**
 * The tool-estate language server: checks open `*.tool.json` drafts against their estate with the
 * findings engine of `estate check` (`lib/report/`: `checkDraft`'s findings and the gateway's
 * drift notices, under their rule ids, with the estate's `rules.json` applied), and maps the
 * result to LSP. Each file's estate is found as the CLI finds its default one (`findEstateDir`
 * from the file's folder, else the workspace folder's `corpus/`), unless the
 * `toolEstate.estateFolder` setting names one. An expired ignore is an `ignore-expired` error on
 * the estate's `rules.json`. The placing of findings, the fix, the hover and the status are in
 * `check_file.ts`; this file only wires documents, settings, watchers and requests.
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
import { findEstateDir } from "../../lib/store/find_estate.ts";
import { readRulesFile } from "../../lib/store/read_rules.ts";
import { RULES_FILE } from "../../lib/estate/estate_files.ts";
import { ESTATE_CONFIG_FILE } from "../../lib/estate/estate_config.ts";
import {
  checkReport,
  isOnVersion,
  type LoadedRules,
  NO_RULES,
  parseToolFile,
  RulesFileError,
} from "../../lib/report/mod.ts";
import {
  checkToolFile,
  type FileCheck,
  type FileDiagnostic,
  type FileStatus,
  toDiagnostic,
} from "./check_file.ts";
import { EstateSnapshot } from "./estate.ts";
import { matchesGlob } from "./glob.ts";

/** The `toolEstate.*` settings the server reads. */
export interface Settings {
  /**
   * The estate folder, relative to the workspace folder (or absolute); empty: found from each
   * file's folder as `estate check` finds it (`findEstateDir`), else the workspace's `corpus/`.
   */
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

/** An estate as the server holds it: its published versions, its rules and what went wrong. */
interface LoadedEstate {
  /** The published versions, stored calls and drift log. */
  snapshot: EstateSnapshot;
  /** Why the estate could not be loaded (then the snapshot is empty). */
  problem?: string;
  /** Its rules.json. */
  rules: LoadedRules;
  /** Why its rules.json could not be read (then no rules apply). */
  rulesProblem?: string;
  /** Its rules.json's URI (where `ignore-expired` errors are shown). */
  rulesUri: string;
}

/** The `toolEstate/status` notification's parameters. */
export interface StatusParams extends FileStatus {
  /** The document. */
  uri: string;
}

/** The estate folder when none is found (this repository's example estate), as for the CLI. */
const FALLBACK_ESTATE_FOLDER = "corpus";

const DEFAULTS: Settings = {
  estateFolder: "",
  files: "**/*.tool.json",
  run: "onType",
};

function readSettings(value: unknown): Settings {
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  return {
    estateFolder: typeof v.estateFolder === "string"
      ? v.estateFolder.trim()
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
  const estates = new Map<string, LoadedEstate>();
  const results = new Map<string, { version: number; check: FileCheck }>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** What was last published on each estate's rules.json (JSON of the diagnostics). */
  const rulesShown = new Map<string, string>();
  let recheckTimer: ReturnType<typeof setTimeout> | undefined;

  /** The workspace folder a file belongs to: the innermost one holding it, else its own folder. */
  const folderOf = (file: string): string =>
    folders.filter((f) => inside(f, file)).sort((a, b) => b.length - a.length)[0] ??
      path.dirname(file);

  /** A path as findings name it: relative to its workspace folder, `/`-separated. */
  const nameOf = (file: string): string => {
    const rel = path.relative(folderOf(file), file);
    return rel && !rel.startsWith("..") && !path.isAbsolute(rel)
      ? rel.split(path.sep).join("/")
      : file.split(path.sep).join("/");
  };

  /**
   * The estate folder of a file (or of a workspace folder): the setting when it names one, else
   * the nearest holding estate.json (`findEstateDir`, as `estate check` finds its default estate),
   * else the workspace folder's `corpus/`.
   */
  const estateDirOf = (
    from: string,
    folder: string,
  ): { dir: string; found: boolean } => {
    if (settings.estateFolder) {
      return { dir: path.resolve(folder, settings.estateFolder), found: true };
    }
    const dir = findEstateDir(from);
    return dir
      ? { dir, found: true }
      : { dir: path.resolve(folder, FALLBACK_ESTATE_FOLDER), found: false };
  };

  const estateFor = (
    dir: string,
    found: boolean,
    from: string,
  ): LoadedEstate => {
    let entry = estates.get(dir);
    if (entry) return entry;
    let snapshot: EstateSnapshot;
    let problem: string | undefined;
    try {
      snapshot = EstateSnapshot.load(dir);
    } catch (e) {
      snapshot = EstateSnapshot.empty(dir);
      problem = !found && !fs.existsSync(dir)
        ? `no estate found: no ${ESTATE_CONFIG_FILE} in ${from}, its estate/ folder or a folder ` +
          `above it in the repository (and no ${FALLBACK_ESTATE_FOLDER}/ folder); run estate ` +
          `init to create one, or set toolEstate.estateFolder`
        : (e as Error).message;
    }
    const rulesFile = path.join(dir, RULES_FILE);
    let rules: LoadedRules = NO_RULES;
    let rulesProblem: string | undefined;
    try {
      rules = readRulesFile(rulesFile, nameOf(rulesFile));
    } catch (e) {
      if (!(e instanceof RulesFileError)) throw e;
      rulesProblem = e.message;
    }
    entry = {
      snapshot,
      problem,
      rules,
      rulesProblem,
      rulesUri: pathToFileURL(rulesFile).href,
    };
    estates.set(dir, entry);
    watchEstates().catch((e) => connection.console.error(`watching the estate: ${e}`));
    return entry;
  };

  /** Shows the `ignore-expired` errors of an estate's rules.json on it (once per change). */
  const showRules = (estate: LoadedEstate): FileDiagnostic[] => {
    const diagnostics = checkReport("check", [], {
      rules: estate.rules,
      now: new Date(),
    })
      .findings.map(toDiagnostic);
    const key = JSON.stringify(diagnostics);
    if (rulesShown.get(estate.rulesUri) !== key) {
      rulesShown.set(estate.rulesUri, key);
      connection.sendDiagnostics({ uri: estate.rulesUri, diagnostics });
    }
    return diagnostics;
  };

  const checkText = (uri: string, text: string): FileCheck => {
    const file = toPath(uri);
    const folder = file ? folderOf(file) : folders[0] ?? process.cwd();
    const from = file ? path.dirname(file) : folder;
    const { dir, found } = estateDirOf(from, folder);
    const estate = estateFor(dir, found, from);
    if (file && path.basename(file) === RULES_FILE) {
      // Not a tool file: the estate's rules.json shows its expired ignores, another none.
      if (path.dirname(file) !== dir) {
        return {
          diagnostics: [],
          status: {
            text: "Tool Estate",
            detail: "not an estate's rules.json",
            severity: "information",
          },
          findings: [],
        };
      }
      const diagnostics = showRules(estate);
      return {
        diagnostics,
        status: {
          text: estate.rulesProblem ? "rules.json not applied" : "estate rules",
          detail: estate.rulesProblem ?? `the rules of the estate ${dir}`,
          severity: estate.rulesProblem ? "error" : diagnostics.length ? "error" : "information",
        },
        findings: [],
      };
    }
    const rel = path.relative(folder, dir);
    const label = rel && !rel.startsWith("..") && !path.isAbsolute(rel)
      ? rel.split(path.sep).join("/") + "/"
      : dir;
    const check = checkToolFile(text, {
      check: (spec, text) => estate.snapshot.check(spec, text),
      drift: (name) => estate.snapshot.driftNotices(name),
      estateLabel: label,
      estateProblem: estate.problem,
      rules: estate.rules,
      rulesProblem: estate.rulesProblem,
      fileLabel: file ? nameOf(file) : uri,
    });
    showRules(estate);
    return check;
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
    if (!isRulesDoc(doc.uri)) {
      connection.sendDiagnostics({
        uri: doc.uri,
        version: doc.version,
        diagnostics: check.diagnostics,
      });
    }
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

  /** The rules.json of a loaded estate (its diagnostics are published by `showRules`). */
  const isRulesDoc = (uri: string): boolean =>
    [...estates.values()].some((e) => e.rulesUri === uri);

  let watched = "";
  /**
   * Asks the client to watch every estate folder in use (each workspace folder's own, and each
   * estate a file was checked against) and each workspace folder's `estate.json` files (a new
   * estate), by dynamic registration; again whenever that list changes.
   */
  const watchEstates = async (): Promise<void> => {
    if (!dynamicWatchers) return;
    const dirs = [
      ...new Set([
        ...folders.map((f) => estateDirOf(f, f).dir),
        ...estates.keys(),
      ]),
    ];
    const watchers = [
      ...dirs.map((dir) => ({
        globPattern: { baseUri: pathToFileURL(dir).href, pattern: "**/*" },
      })),
      ...folders.map((f) => ({
        globPattern: {
          baseUri: pathToFileURL(f).href,
          pattern: `**/${ESTATE_CONFIG_FILE}`,
        },
      })),
    ];
    const key = JSON.stringify(watchers);
    if (key === watched) return;
    watched = key;
    const previous = watcherRegistration;
    watcherRegistration = undefined;
    if (previous) (await previous).dispose();
    watcherRegistration = connection.client.register(
      DidChangeWatchedFilesNotification.type,
      { watchers },
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
      rulesShown.clear();
      watchEstates().catch((e) => connection.console.error(`watching the estate: ${e}`));
    }
    recheckAll();
  });

  connection.onDidChangeWatchedFiles((params) => {
    const changed = params.changes.map((c) => toPath(c.uri)).filter((
      p,
    ): p is string => !!p);
    let any = false;
    // A new or removed estate.json outside the loaded estates: where files' estates are may change.
    if (
      changed.some((file) =>
        path.basename(file) === ESTATE_CONFIG_FILE &&
        ![...estates.keys()].some((d) => inside(d, file))
      )
    ) {
      estates.clear();
      any = true;
    }
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
