/**
 * A child process for the reader tests: publishes `count` patch versions of one tool, one after
 * another, each through the CLI (`estate publish FILE --estate DIR`: open the estate, lock, write),
 * and prints one JSON line at the end: how many publishes exited with each code, and the first
 * few error outputs. Usage: `deno run -A tests/_store_publish_loop.ts <estate> <tool> <count>`.
 */
import { runCli } from "../lib/cli/main.ts";
import { lookup } from "./_store_fixtures.ts";

const [dir, name, count] = Deno.args;
const drafts = Deno.makeTempDirSync({ prefix: "publish-loop-" });
const codes: Record<string, number> = {};
const errors: string[] = [];
try {
  for (let i = 1; i <= Number(count); i++) {
    const file = `${drafts}/${i}.tool.json`;
    Deno.writeTextFileSync(
      file,
      JSON.stringify(
        lookup(`1.0.${i}`, { name, title: `${name} ${i}` }),
        null,
        2,
      ),
    );
    let out = "";
    const code = await runCli(["publish", file, "--estate", dir], {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
      isTerminal: false,
      cwd: Deno.cwd(),
    });
    codes[code] = (codes[code] ?? 0) + 1;
    if (code !== 0 && errors.length < 3) errors.push(`1.0.${i}: ${out.trim()}`);
  }
} finally {
  Deno.removeSync(drafts, { recursive: true });
}
console.log(JSON.stringify({ codes, errors }));
