/**
 * The commands of the READMEs and of the `docs/` pages work on a machine with only Node and npm.
 * Every command a reader can copy (a line of a `sh` block, or a code span that starts like a
 * command) runs Deno as `npx -y deno@<the version CI installs>`, never a bare `deno`; each task it
 * names exists, and each repository file it names is there. The one other use of npx is the
 * `estate` command a reader's own repository installs from the npm package (`npx estate …`, the
 * README's "In your own repository", which another test runs in a scratch repository). The CLI
 * examples (wherever they are: the README or `docs/`), the demo and the stdio server run as
 * printed, in order, on a scratch copy of the repository, with `npx` standing for the Deno running
 * this test (a fresh clone runs the real `npx`), and end with the exit code the page gives them
 * (`exit N` in the line's comment; 0 otherwise); the replicas' block in `docs/postgres.md` runs
 * against a real PostgreSQL and must leave no server behind.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);
/** The README, then the `docs/` pages in name order (the CLI examples of `docs/cli.md` make the
 * copy `docs/gateway.md`'s work on), then the other READMEs. */
const READMES = [
  "README.md",
  ...fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
  "corpus/README.md",
  "extension/README.md",
  "npm/README.md",
];
const DENO_VERSION = /^DENO_VERSION=(\S+)$/m.exec(
  fs.readFileSync(path.join(ROOT, ".ci/run"), "utf8"),
)![1];
const NPX_DENO = `npx -y deno@${DENO_VERSION}`;

/** A command a reader can copy. */
interface Command {
  /** The command, as printed (without its comment). */
  text: string;
  /** The comment after it on the same line, if any. */
  comment: string;
  /** Where it is: `file:line`. */
  at: string;
  /** Its line in the file (1-based). */
  line: number;
  /** The fenced block it is in (its index in the file), or undefined for a code span. */
  block?: number;
}

const SHELL_BLOCK = /^```(sh|bash|shell)\s*$/;
const COMMAND_START = /^(npx|deno|npm|node|cd|cp|bash|git) /;

/** The commands of a Markdown file: `sh` block lines and code spans that start like a command. */
export function commands(file: string): Command[] {
  const lines = fs.readFileSync(path.join(ROOT, file), "utf8").split("\n");
  const out: Command[] = [];
  let fence: string | undefined;
  let block = -1;
  const prose: { text: string; line: number }[] = [];
  lines.forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    if (fence === undefined && /^```/.test(line)) {
      fence = line;
      block++;
      return;
    }
    if (fence !== undefined) {
      if (/^```\s*$/.test(line)) {
        fence = undefined;
        return;
      }
      if (
        !SHELL_BLOCK.test(fence) || line.trim() === "" ||
        line.trim().startsWith("#")
      ) return;
      const m = /^(.*?)(?:\s+#\s(.*))?$/.exec(line)!;
      out.push({
        text: m[1].trim(),
        comment: m[2] ?? "",
        at,
        line: i + 1,
        block,
      });
      return;
    }
    prose.push({ text: line, line: i + 1 });
  });
  // Code spans may wrap across lines within a paragraph.
  const text = prose.map((p) => p.text).join("\n");
  for (const m of text.matchAll(/`([^`]+)`/g)) {
    const span = m[1].replace(/\s*\n\s*/g, " ").trim();
    if (!COMMAND_START.test(span)) continue;
    const line = prose[text.slice(0, m.index).split("\n").length - 1].line;
    out.push({ text: span, comment: "", at: `${file}:${line}`, line });
  }
  return out.sort((a, b) => a.line - b.line);
}

const TASKS = Object.keys(
  JSON.parse(fs.readFileSync(path.join(ROOT, "deno.json"), "utf8"))
    .tasks as Record<string, string>,
);

Deno.test("every command in the READMEs runs Deno through npx at CI's version, names a task that exists and files that are there", () => {
  let count = 0;
  for (const file of READMES) {
    for (const c of commands(file)) {
      count++;
      assert.doesNotMatch(
        c.text,
        /(^|[;&|(]\s*)deno /,
        `${c.at}: a bare deno: ${c.text}`,
      );
      for (const npx of c.text.matchAll(/(?:^|[;&|(]\s*)npx (.*)/g)) {
        // The MCP Inspector, pinned, is the one other program a reader runs through npx; with
        // --cli it runs Deno through npx in turn. `npx estate …` is the command the npm package
        // installs in a reader's own repository.
        if (/^@modelcontextprotocol\/inspector@\d+\.\d+\.\d+$/.test(npx[1])) {
          continue;
        }
        if (/^estate( |$)/.test(npx[1])) continue;
        const inspected = /^@modelcontextprotocol\/inspector@\d+\.\d+\.\d+ --cli (npx .*)$/
          .exec(npx[1]);
        assert.ok(
          (inspected ? inspected[1] : `npx ${npx[1]}`).startsWith(
            `${NPX_DENO} `,
          ),
          `${c.at}: npx runs ${NPX_DENO} only: ${c.text}`,
        );
      }
      const task = new RegExp(`${NPX_DENO.replaceAll(".", "\\.")} task (\\S+)`)
        .exec(c.text);
      if (task) {
        assert.ok(
          TASKS.includes(task[1]),
          `${c.at}: no task ${task[1]} in deno.json`,
        );
      }
      for (const token of c.text.split(/\s+/)) {
        if (!/^[\w.-]+\/[\w./-]+\.(ts|mjs|json|jsonc)$/.test(token)) continue;
        if (/^(\.\/)?dist\//.test(token)) continue; // built by the command before it
        const base = path.dirname(file);
        assert.ok(
          fs.existsSync(path.join(ROOT, base, token)) ||
            fs.existsSync(path.join(ROOT, token)),
          `${c.at}: ${token} does not exist`,
        );
      }
    }
  }
  assert.ok(
    count > 20,
    `found only ${count} commands: the extraction is broken`,
  );
});

Deno.test("the README opens with a sentence saying what this is, then the two set-up commands, the first commands in it", () => {
  const lines = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").split(
    "\n",
  );
  assert.match(
    lines[0],
    /^[A-Za-z`@]/,
    "line 1 is plain text: not a heading, a fence or a list",
  );
  const end = lines.indexOf("");
  assert.match(
    lines.slice(0, end).join(" "),
    /\.$/,
    "the first paragraph is a sentence",
  );
  const next = lines.findIndex((l, i) => i > end && l !== "");
  assert.deepEqual(
    lines.slice(next, next + 4),
    ["```sh", `${NPX_DENO} task serve`, `${NPX_DENO} task test`, "```"],
    "the first fenced block, right after the sentence, is exactly the two commands",
  );
  assert.ok(
    !lines.slice(0, next).some((l) => l.startsWith("```")),
    "no fence before it",
  );
  assert.deepEqual(
    commands("README.md").slice(0, 2).map((c) => c.text),
    [`${NPX_DENO} task serve`, `${NPX_DENO} task test`],
    "no command comes before them",
  );
});

Deno.test("the README's 'In your own repository' builds the package here, then installs it, runs init and checks against HEAD", () => {
  const lines = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").split(
    "\n",
  );
  const start = lines.indexOf("## In your own repository");
  assert.ok(start > 0, "the README has the section");
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  const own = commands("README.md").filter((c) =>
    c.block !== undefined && c.line > start && c.line < end
  ).map((c) => c.text);
  assert.match(
    own[0],
    new RegExp(`^${NPX_DENO.replaceAll(".", "\\.")} task npm$`),
  );
  assert.match(
    own[1],
    /^npm install --save-dev \S+\/dist\/tool-estate-core-[\d.]+\.tgz$/,
  );
  for (const c of ["npx estate init", "npx estate check --against HEAD"]) {
    assert.ok(own.includes(c), `the section runs ${c}`);
  }
  // This test does not run it: that needs a scratch repository of its own.
  assert.ok(!cliBlocks().flat().some((c) => own.includes(c.text)));
});

/** A scratch copy of what the runtime tasks need, inside a folder of its own (for `../x`). */
function scratchClone(): { parent: string; repo: string; bin: string } {
  const parent = Deno.makeTempDirSync({ prefix: "readme-" });
  const repo = path.join(parent, "repo");
  for (
    const p of [
      "deno.json",
      "deno.lock",
      "deno.runtime.jsonc",
      "deno.runtime.lock",
      "cli.ts",
      "demo.ts",
      "mod.ts",
      "lib",
      // The CLI's positions come from the editor's code until it moves into lib/.
      "examples",
      "corpus",
    ]
  ) {
    fs.cpSync(path.join(ROOT, p), path.join(repo, p), { recursive: true });
  }
  // `npx -y deno@VERSION ARGS` is this Deno with ARGS; any other npx use fails loudly. Like npm's
  // npx, it runs Deno as its child (not in its place) and passes no signal on: a signal to npx
  // alone leaves Deno running, as it does on a reader's machine.
  const bin = path.join(parent, "bin");
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, "npx"),
    `#!/bin/sh
if [ "$1" = "-y" ] && [ "$2" = "deno@${DENO_VERSION}" ]; then shift 2; "${Deno.execPath()}" "$@"; exit $?; fi
echo "npx: only ${NPX_DENO} stands in here, not: npx $*" >&2
exit 127
`,
    { mode: 0o755 },
  );
  return { parent, repo, bin };
}

/** Options of {@linkcode sh}. */
interface ShOptions {
  /** The shell: `sh` (default) or `bash`. */
  shell?: "sh" | "bash";
  /** Fail after this long, first calling `onTimeout` to stop what the command left running. */
  timeoutMs?: number;
  onTimeout?: () => void;
}

async function sh(
  command: string,
  where: { repo: string; bin: string },
  stdin?: string,
  options: ShOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(options.shell ?? "sh", {
    args: ["-c", command],
    cwd: where.repo,
    env: { PATH: `${where.bin}:${Deno.env.get("PATH")}`, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (stdin) await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const output = child.output();
  const timedOut = new Promise<never>((_, reject) => {
    if (options.timeoutMs === undefined) return;
    timer = setTimeout(() => {
      options.onTimeout?.();
      try {
        child.kill("SIGKILL");
      } catch { /* already ended */ }
      reject(
        new Error(`still running after ${options.timeoutMs} ms: ${command}`),
      );
    }, options.timeoutMs);
  });
  const { code, stdout, stderr } = await Promise.race([output, timedOut])
    .finally(() => clearTimeout(timer));
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code, stdout: decode(stdout), stderr: decode(stderr) };
}

/** The pages' `sh` blocks that run the CLI, in page order: every line an `estate` task or a copy. */
function cliBlocks(): Command[][] {
  return shBlocks().filter((b) =>
    b.some((c) => c.text.startsWith(`${NPX_DENO} task estate `)) &&
    b.every((c) => c.text.startsWith(`${NPX_DENO} task estate `) || c.text.startsWith("cp "))
  );
}

Deno.test("the CLI examples run as printed, in order, with the exit codes their pages give", async () => {
  const where = scratchClone();
  try {
    const blocks = cliBlocks();
    assert.ok(blocks.length >= 2, "the CLI examples and the copy to write to");
    const outputs: string[] = [];
    for (const c of blocks.flat()) {
      const expected = Number(/\bexit (\d+)\b/.exec(c.comment)?.[1] ?? 0);
      const { code, stdout, stderr } = await sh(c.text, where);
      assert.equal(code, expected, `${c.at}: ${c.text}\n${stdout}${stderr}`);
      outputs.push(stdout);
    }
    // What the examples say they show.
    assert.match(outputs[0], /^retail-agent .* sees 5 tools:/);
    const flat = blocks.flat();
    const listed = flat.findLastIndex((c) => / estate list --principal /.test(c.text));
    assert.match(
      outputs[listed],
      /fx\.quote@1\.1\.0/,
      "the published draft is discovered",
    );
    const servers = flat.findIndex((c) => / estate servers --estate /.test(c.text));
    assert.match(
      outputs[servers],
      /^crm-mcp \(owner customer-data\)/,
      "the registered server is listed",
    );
    assert.equal(
      fs.existsSync(
        path.join(where.repo, "corpus", "tools", "fx.quote", "1.1.0.json"),
      ),
      false,
      "the example estate itself is untouched",
    );
  } finally {
    fs.rmSync(where.parent, { recursive: true, force: true });
  }
});

Deno.test("the demo and stdio server commands run as printed", async () => {
  const where = scratchClone();
  try {
    const inline = READMES.flatMap(commands).filter((c) => c.block === undefined);
    const demo = inline.find((c) => c.text === `${NPX_DENO} task demo`);
    assert.ok(demo, "the README shows the demo");
    const ran = await sh(demo.text, where);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(
      ran.stdout,
      /resolve payments\.lookup ~1\.0\.0: +nothing \(retired\)/,
    );

    const stdio = inline.find((c) => c.text.startsWith(`${NPX_DENO} task serve --stdio `));
    assert.ok(stdio, "the README shows the stdio server");
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "readme", version: "1" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ].map((m) => JSON.stringify(m) + "\n").join("");
    const served = await sh(stdio.text, where, lines);
    assert.equal(served.code, 0, served.stderr);
    const listed = served.stdout.trim().split("\n").map((l) => JSON.parse(l))
      .find((m) => m.id === 2);
    assert.deepEqual(
      listed.result.tools.map((t: { name: string }) => t.name).sort(),
      ["crm.customer.get", "policy.search", "retail.transfers.lookup"],
    );
  } finally {
    fs.rmSync(where.parent, { recursive: true, force: true });
  }
});

Deno.test({
  name: postgresSkipReason()
    ? `the replica commands run as printed against a real PostgreSQL and stop both servers (ignored: ${postgresSkipReason()})`
    : "the replica commands run as printed against a real PostgreSQL and stop both servers",
  ignore: postgresSkipReason() !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const block = shBlocks().find((b) => b.some((c) => / estate migrate /.test(c.text)));
    assert.ok(block, "the docs show running several replicas");
    assert.match(
      block[0].text,
      /^export ESTATE_DB=postgres:\/\//,
      "it names its database first",
    );
    const pg = await startPostgres();
    const where = scratchClone();
    try {
      const url = await pg.createDatabase();
      const ports = [freePort(), freePort()];
      const script = [
        `export ESTATE_DB=${url}`,
        ...block.slice(1).map((c) => c.text),
      ].join("\n")
        .replace("127.0.0.1:3001", `127.0.0.1:${ports[0]}`)
        .replace("127.0.0.1:3002", `127.0.0.1:${ports[1]}`)
        // Each line must succeed, as a reader running it would see.
        .split("\n").map((l) => l.startsWith("npx") && !l.includes(" & ") ? `${l} || exit 9` : l)
        .join("\n");
      // Run as a reader runs it, in bash; should the last line leave a server running (holding
      // the output open), the servers are found by their ports, stopped by id, and the test fails.
      const leftovers = () => serversOn(ports);
      const { code, stdout, stderr } = await sh(script, where, undefined, {
        shell: "bash",
        timeoutMs: 120_000,
        onTimeout: () => leftovers().forEach((pid) => Deno.kill(pid, "SIGKILL")),
      });
      assert.equal(code, 0, `${stdout}${stderr}`);
      // The block's last line stopped both servers: no process of theirs, nothing on the ports.
      for (let i = 0; i < 50 && leftovers().length > 0; i++) await delay(100);
      assert.deepEqual(leftovers(), [], "no replica's process is left running");
      for (const port of ports) {
        await assert.rejects(
          Deno.connect({ hostname: "127.0.0.1", port }).then((c) => c.close()),
          `nothing listens on ${port}`,
        );
      }
      assert.match(stdout, /migrated 9 tools, 12 versions/);
      assert.match(
        stdout,
        /published fx\.quote@1\.1\.0 \(minor change against 1\.0\.0\)/,
      );
      assert.match(stdout, /fx\.quote@1\.1\.0/);
      assert.match(stdout, /exported 9 tools, 13 versions/);
      assert.ok(
        fs.existsSync(
          path.join(
            where.parent,
            "estate-export",
            "tools",
            "fx.quote",
            "1.1.0.json",
          ),
        ),
      );
    } finally {
      fs.rmSync(where.parent, { recursive: true, force: true });
      await pg.stop();
    }
  },
});

/** Every `sh` block's commands, by block, page by page in `READMES`' order. */
function shBlocks(): Command[][] {
  return READMES.flatMap((file) => {
    const blocks = new Map<number, Command[]>();
    for (const c of commands(file)) {
      if (c.block === undefined) continue;
      blocks.set(c.block, [...(blocks.get(c.block) ?? []), c]);
    }
    return [...blocks.values()];
  });
}

/** The processes whose command line serves HTTP on one of these ports (as `ps` lists them). */
function serversOn(ports: number[]): number[] {
  const ps = new Deno.Command("ps", {
    args: ["-eo", "pid=,args="],
    stdout: "piped",
  }).outputSync();
  return new TextDecoder().decode(ps.stdout).split("\n")
    .filter((l) => ports.some((p) => l.includes(`--http 127.0.0.1:${p} `)))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
