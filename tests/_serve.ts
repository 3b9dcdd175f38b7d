/** Shared by the peer tests: a scratch copy of the example estate, and `estate serve` in a process. */
import fs from "node:fs";
import { needsConfirmation } from "../mod.ts";

/** The repository root (with a trailing slash). */
export const ROOT: string = new URL("../", import.meta.url).pathname;

/** What each principal of the example estate may see (corpus/principals.json, corpus/tools/). */
export const SEES = {
  "retail-agent": [
    "crm.customer.get",
    "policy.search",
    "retail.transfers.lookup",
  ],
  "wholesale-operator": [
    "fx.quote",
    "payments.lookup",
    "payments.release",
    "policy.search",
  ],
};

/** A principal of the example estate the peer tests use. */
export type PrincipalId = keyof typeof SEES;

/**
 * The example estate's tools whose calls the user must confirm (`needsConfirmation` of their
 * newest version, read from corpus/): not listed to a client that declares no elicitation.
 */
export const NEEDS_CONFIRMATION: readonly string[] = fs.readdirSync(`${ROOT}corpus/tools`)
  .filter((name) => {
    const dir = `${ROOT}corpus/tools/${name}`;
    const versions = fs.readdirSync(dir).filter((f) => /^\d+\.\d+\.\d+\.json$/.test(f));
    return versions.some((f) =>
      needsConfirmation(JSON.parse(fs.readFileSync(`${dir}/${f}`, "utf8")))
    );
  })
  .sort();

/** What a principal sees with a client that declares no elicitation. */
export function seesWithoutElicitation(principal: PrincipalId): string[] {
  return SEES[principal].filter((name) => !NEEDS_CONFIRMATION.includes(name));
}

/** Runs `body` on a fresh copy of the example estate under .scratch/, removed afterwards. */
export async function withEstate(
  prefix: string,
  body: (dir: string) => Promise<void>,
): Promise<void> {
  await Deno.mkdir(`${ROOT}.scratch`, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: `${ROOT}.scratch`, prefix });
  fs.cpSync(`${ROOT}corpus`, dir, { recursive: true });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The `estate serve` command line for an estate folder. */
export function serveArgs(dir: string, ...rest: string[]): string[] {
  return ["run", "-A", `${ROOT}cli.ts`, "serve", "--estate", dir, ...rest];
}

/** A running `estate serve --http` process. */
export interface ServeProcess {
  /** The MCP endpoint it printed. */
  url: URL;
  /** Ends the process (SIGTERM) and waits for it. */
  stop(): Promise<void>;
  /** Kills the process with SIGKILL (nothing it holds is closed) and waits for it. */
  kill(): Promise<void>;
}

/**
 * Runs Deno with `args` (an `estate serve --http …` command line) and reads the URL it prints.
 *
 * @param onLog Given the server log (stderr) as it arrives; without it, the log is dropped.
 * @returns The URL, `stop` and `kill`.
 * @throws {Error} With what it printed, when no URL appears.
 */
export async function spawnServe(
  args: string[],
  onLog?: (text: string) => void,
): Promise<ServeProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: onLog ? "piped" : "null",
  }).spawn();
  const logged = onLog
    ? child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (text) => onLog(text) }),
    )
    : Promise.resolve();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  let url: URL | undefined;
  while (!url) {
    const { value, done } = await reader.read();
    if (done) break;
    printed += value;
    const m = /URL: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(printed);
    if (m) url = new URL(m[1]);
  }
  const drained = (async () => {
    while (!(await reader.read()).done) { /* the rest of the banner */ }
  })();
  const end = async (signal: Deno.Signal) => {
    try {
      child.kill(signal);
    } catch { /* already ended */ }
    await child.status;
    await drained;
    await logged;
  };
  if (!url) {
    await end("SIGTERM");
    throw new Error(`estate serve --http printed no URL:\n${printed}`);
  }
  return { url, stop: () => end("SIGTERM"), kill: () => end("SIGKILL") };
}

/**
 * Starts `estate serve --http 127.0.0.1:0` on an estate folder and reads the URL it prints.
 *
 * @param onLog Given the server log (stderr) as it arrives; without it, the log is dropped.
 * @param options Another address to listen on, further arguments (`--auth oidc …`).
 * @returns The URL and a `stop` that ends the process and waits for it.
 * @throws {Error} With what it printed, when no URL appears.
 */
export async function startHttpServe(
  dir: string,
  onLog?: (text: string) => void,
  options: { listen?: string; args?: string[] } = {},
): Promise<{ url: URL; stop: () => Promise<void> }> {
  const { url, stop } = await spawnServe(
    serveArgs(
      dir,
      "--http",
      options.listen ?? "127.0.0.1:0",
      ...(options.args ?? []),
    ),
    onLog,
  );
  return { url, stop };
}
