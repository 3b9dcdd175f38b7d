import assert from "node:assert/strict";

/**
 * Paths under lib/ that may use a runtime: the CLI, the transports, the estate on disk, the
 * gateway's verified connections to upstreams (TLS, hashing programs, spawning them).
 */
const RUNTIME_EDGES = [
  "lib/cli/",
  "lib/mcp/transports/",
  "lib/store/",
  "lib/gateway/identity.ts",
  "lib/gateway/_identity_",
];

function* sources(dir: URL, rel = "lib/"): Generator<[string, string]> {
  for (const entry of Deno.readDirSync(dir)) {
    const path = rel + entry.name;
    if (entry.isDirectory) {
      yield* sources(new URL(entry.name + "/", dir), path + "/");
    } else if (entry.name.endsWith(".ts")) {
      yield [path, Deno.readTextFileSync(new URL(entry.name, dir))];
    }
  }
}

Deno.test("the core under lib/ uses no Deno.* and imports no node:* module", () => {
  const offenders: string[] = [];
  for (const [path, text] of sources(new URL("../lib/", import.meta.url))) {
    if (RUNTIME_EDGES.some((edge) => path.startsWith(edge))) continue;
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    if (/\bDeno\./.test(code)) offenders.push(`${path}: Deno.*`);
    if (
      /from\s+["']node:|import\(\s*["']node:|require\(\s*["']node:/.test(code)
    ) {
      offenders.push(`${path}: node:*`);
    }
  }
  assert.deepEqual(offenders, []);
});
