/**
 * The VS Code side: starts the tool-estate language server for the tool files, shows its status
 * in a language-status item, and runs "Check all tool files". Everything decided is decided by the
 * server (and so by the library).
 *
 * @module
 */
import {
  commands,
  type ExtensionContext,
  languages,
  LanguageStatusSeverity,
  window,
  workspace,
} from "vscode";
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { estateFilesGlob } from "./glob.ts";

const CLIENT_ID = "toolEstate";

/** The running client, for `deactivate` to stop (VS Code awaits the promise it returns). */
let running: LanguageClient | undefined;

interface Status {
  uri: string;
  text: string;
  detail: string;
  severity: "error" | "warning" | "information";
}

interface CheckAllResult {
  checked: number;
  failed: number;
  files: { uri: string; errors: number; warnings: number }[];
}

function settings(): Record<string, unknown> {
  const c = workspace.getConfiguration("toolEstate");
  return {
    estateFolder: c.get<string>("estateFolder", ""),
    files: c.get<string>("files", "**/*.tool.json"),
    run: c.get<string>("run", "onType"),
  };
}

/**
 * The tool files: files on disk matching `toolEstate.files` (a plain string glob), and the
 * estate's own version files (where the gateway's drift shows too), whatever language mode the
 * editor gave them (`json`, `jsonc`, or plain text before JSON support loads).
 */
function selector(): { scheme: string; pattern: string }[] {
  const c = workspace.getConfiguration("toolEstate");
  return [
    { scheme: "file", pattern: c.get<string>("files", "**/*.tool.json") },
    { scheme: "file", pattern: estateFilesGlob(c.get<string>("estateFolder", "")) },
    // An estate's rules.json: the server shows its expired ignores (ignore-expired) on it.
    { scheme: "file", pattern: "**/rules.json" },
  ];
}

/**
 * Activates the extension: starts the client, the status item and the command.
 *
 * @param context The extension context.
 */
export async function activate(context: ExtensionContext): Promise<void> {
  const module = context.asAbsolutePath("dist/server.js");
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.stdio },
    debug: {
      module,
      transport: TransportKind.stdio,
      options: { execArgv: ["--inspect=6009"] },
    },
  };
  const statuses = new Map<string, Status>();
  const item = languages.createLanguageStatusItem(
    "toolEstate.status",
    selector(),
  );
  item.name = "Tool Estate";
  item.text = "Tool Estate";
  item.command = { command: "toolEstate.checkAll", title: "Check all" };
  context.subscriptions.push(item);

  const showStatus = (): void => {
    const uri = window.activeTextEditor?.document.uri.toString();
    const s = uri ? statuses.get(uri) : undefined;
    item.text = s ? s.text : "Tool Estate";
    item.detail = s?.detail;
    item.severity = s?.severity === "error"
      ? LanguageStatusSeverity.Error
      : s?.severity === "warning"
      ? LanguageStatusSeverity.Warning
      : LanguageStatusSeverity.Information;
  };

  const start = async (): Promise<LanguageClient> => {
    const clientOptions: LanguageClientOptions = {
      documentSelector: selector(),
      synchronize: { configurationSection: "toolEstate" },
      initializationOptions: { settings: settings() },
    };
    const client = new LanguageClient(
      CLIENT_ID,
      "Tool Estate",
      serverOptions,
      clientOptions,
    );
    client.onNotification("toolEstate/status", (s: Status) => {
      statuses.set(s.uri, s);
      showStatus();
    });
    await client.start();
    running = client;
    return client;
  };

  let client = await start();
  context.subscriptions.push(window.onDidChangeActiveTextEditor(showStatus));
  context.subscriptions.push(workspace.onDidCloseTextDocument((d) => {
    statuses.delete(d.uri.toString());
  }));
  context.subscriptions.push(workspace.onDidChangeConfiguration(async (e) => {
    // The document selector is fixed when a client starts: a new glob needs a new client.
    if (
      !e.affectsConfiguration("toolEstate.files") &&
      !e.affectsConfiguration("toolEstate.estateFolder")
    ) return;
    await client.stop();
    item.selector = selector();
    client = await start();
  }));
  context.subscriptions.push(
    commands.registerCommand("toolEstate.checkAll", async () => {
      const r: CheckAllResult = await client.sendRequest("toolEstate/checkAll");
      const errors = r.files.reduce((n, f) => n + f.errors, 0);
      const warnings = r.files.reduce((n, f) => n + f.warnings, 0);
      window.showInformationMessage(
        `Checked ${r.checked} tool file${r.checked === 1 ? "" : "s"}: ${r.failed} failed ` +
          `(${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${
            warnings === 1 ? "" : "s"
          })`,
      );
      await commands.executeCommand("workbench.actions.view.problems");
      return r;
    }),
  );
}

/**
 * Stops the language server.
 *
 * @returns When it has stopped.
 */
export function deactivate(): Promise<void> | undefined {
  const client = running;
  running = undefined;
  return client?.stop();
}
