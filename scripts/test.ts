/**
 * `deno task test`: the tests as the README runs them, on a fresh clone of a machine with only
 * Node and npm (`npx -y deno@2.9.6 task test`).
 *
 *   deno task test [--verbose] [deno test arguments: files, folders, --filter TEXT, ...]
 *
 * 1. `deno install`: the test dependencies, from deno.lock into node_modules/ (it says so when
 *    node_modules/ is not there yet);
 * 2. builds `extension/dist/` when a selected test needs it (the LSP tests spawn its language
 *    server; `npm ci` in extension/ first when needed), once, saying so: `_extension_build.ts`;
 * 3. `deno test` with the permissions the tests need. Its report shows the failures (with what
 *    they printed) and Deno's summary, `ok | N passed | M failed …`; passing tests and the type
 *    check lines are left out (`_quiet_report.ts`). `--verbose` shows Deno's report as it is.
 *
 * Exits with `deno test`'s exit code.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { ensureExtensionBuilt } from "./_extension_build.ts";
import { plain, QuietReport } from "./_quiet_report.ts";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);

/** The permissions the tests run with. */
export const TEST_PERMISSIONS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
  "--allow-net=127.0.0.1",
];

function testFiles(p: string): string[] {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return [p];
  return fs.readdirSync(p, { recursive: true, encoding: "utf8" })
    .filter((f) => /_test\.ts$/.test(f))
    .map((f) => path.join(p, f));
}

/**
 * Whether the tests `deno test` would run with these arguments include one that needs the
 * extension's bundle (imports `_lsp_client.ts`). No file or folder among them means all tests.
 *
 * @param args The arguments for `deno test`.
 * @returns Whether to build the bundle first.
 */
export function needsExtension(args: readonly string[]): boolean {
  const paths = args.filter((a) => !a.startsWith("-") && fs.existsSync(path.resolve(ROOT, a)));
  if (paths.length === 0) return true;
  return paths.flatMap((p) => testFiles(path.resolve(ROOT, p)))
    .some((f) => fs.readFileSync(f, "utf8").includes("_lsp_client.ts"));
}

async function run(args: string[]): Promise<number> {
  const verbose = args.includes("--verbose");
  const testArgs = args.filter((a) => a !== "--verbose");
  const log = (line: string) => process.stderr.write(line + "\n");

  const first = !fs.existsSync(path.join(ROOT, "node_modules"));
  if (first) log("deno install: the test dependencies, from deno.lock into node_modules/");
  const started = Date.now();
  const install = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--quiet"],
    cwd: ROOT,
    stdin: "null",
  }).output();
  if (!install.success) {
    log(new TextDecoder().decode(install.stderr));
    log("deno install failed: the tests cannot run without their dependencies");
    return install.code || 1;
  }
  if (first) log(`deno install: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  if (needsExtension(testArgs)) {
    try {
      await ensureExtensionBuilt({ root: ROOT, log });
    } catch (e) {
      // The LSP tests fail on their own and say why; everything else still runs.
      log(`extension: the build failed, so the LSP tests will fail:\n${(e as Error).message}`);
    }
  }

  if (!verbose) {
    log("deno test: failures and the summary only (deno task test --verbose shows every test)");
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", ...TEST_PERMISSIONS, ...testArgs],
    cwd: ROOT,
    stdout: verbose ? "inherit" : "piped",
    stderr: verbose ? "inherit" : "piped",
  }).spawn();
  // Ctrl-C reaches deno test too; let it print which tests were pending, then end with it.
  Deno.addSignalListener("SIGINT", () => {});
  if (!verbose) {
    const report = new QuietReport();
    await Promise.all([
      pump(child.stdout, Deno.stdout, (line) => report.line(line), () => report.end()),
      // `--quiet` would also hide what a failing test printed: drop only the type-check lines.
      pump(
        child.stderr,
        Deno.stderr,
        (line) => plain(line).startsWith("Check ") ? [] : [line],
      ),
    ]);
  }
  return (await child.status).code;
}

/** Copies a stream a line at a time through `filter`. */
async function pump(
  from: ReadableStream<Uint8Array>,
  to: { write(p: Uint8Array): Promise<number> },
  filter: (line: string) => string[],
  end: () => string[] = () => [],
): Promise<void> {
  const encoder = new TextEncoder();
  const write = async (lines: string[]) => {
    for (const line of lines) {
      let bytes = encoder.encode(line + "\n");
      while (bytes.length > 0) bytes = bytes.subarray(await to.write(bytes));
    }
  };
  let rest = "";
  for await (const chunk of from.pipeThrough(new TextDecoderStream())) {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop()!;
    for (const line of lines) await write(filter(line));
  }
  if (rest) await write(filter(rest));
  await write(end());
}

if (import.meta.main) {
  Deno.exit(await run(Deno.args));
}
