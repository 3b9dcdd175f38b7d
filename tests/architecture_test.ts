// docs/architecture.md is held to the code, as the threat model is: it names every folder of
// lib/ and every public module, and its layer table is what the imports do.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const DOC = fs.readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");

/** Every `.ts` module under lib/, as a path relative to the repository root. */
function modules(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith(".ts")) out.push(rel);
    }
  };
  walk("lib");
  return out.sort();
}

/** The top folder of lib/ a module is in (`lib/mcp/` for lib/mcp/transports/http.ts). */
function layer(module: string): string {
  const parts = module.split("/");
  return parts.length > 2 ? `lib/${parts[1]}/` : module;
}

/** The layer table: folder → the folders (and files) it may import from. */
function layerRules(): Map<string, Set<string>> {
  const section = DOC.slice(DOC.indexOf("## Layer rules"));
  const table = section.slice(
    0,
    section.indexOf("\n## ") === -1 ? undefined : section.indexOf("\n## "),
  );
  const rules = new Map<string, Set<string>>();
  const all: string[] = [];
  for (const [, folder, allowed] of table.matchAll(/^\| `(lib\/[a-z_]+\/)` +\| (.+?) +\|$/gm)) {
    const names = [...allowed.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    rules.set(folder, new Set(names));
    if (/every folder above/.test(allowed)) { for (const f of all) rules.get(folder)!.add(f); }
    all.push(folder);
  }
  return rules;
}

Deno.test("docs/architecture.md names every folder of lib/ and every public module", () => {
  const missing: string[] = [];
  const folders = new Set(modules().map((m) => `${path.dirname(m)}/`));
  for (const f of folders) if (!DOC.includes(`\`${f}\``)) missing.push(f);
  for (const m of modules()) {
    const name = path.basename(m);
    if (name.startsWith("_")) continue;
    // Named as `name.ts`, or with the folders below lib/<layer>/ (`transports/http.ts`).
    const tail = m.split("/").slice(2).join("/");
    if (!DOC.includes(`\`${name}\``) && !DOC.includes(`\`${tail}\``) && !DOC.includes(`\`${m}\``)) {
      missing.push(m);
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("every import under lib/ follows the layer table of docs/architecture.md, and the table has no cycle", () => {
  const rules = layerRules();
  const layers = new Set(modules().map(layer).filter((l) => l.endsWith("/")));
  assert.deepEqual([...rules.keys()].sort(), [...layers].sort(), "a row for every folder of lib/");
  // The table itself: each row may only name folders of rows above it, so no cycle.
  const seen: string[] = [];
  for (const [folder, allowed] of rules) {
    for (const a of allowed) {
      if (a.startsWith("lib/")) {
        assert.ok(seen.includes(a), `${folder} may import ${a}, listed below it`);
      }
    }
    seen.push(folder);
  }
  const broken: string[] = [];
  for (const m of modules()) {
    const text = fs.readFileSync(path.join(ROOT, m), "utf8");
    for (const [, spec] of text.matchAll(/(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/g)) {
      const target = path.posix.normalize(`${path.posix.dirname(m)}/${spec}`);
      const from = layer(m);
      const to = target.startsWith("lib/") ? layer(target) : target;
      if (to === from || to === "lib/_object.ts") continue;
      if (!from.endsWith("/") || !rules.get(from)?.has(to)) broken.push(`${m} imports ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("a module whose name starts with _ is private to its folder: no other folder of lib/ imports it", () => {
  const crossing: string[] = [];
  for (const m of modules()) {
    const text = fs.readFileSync(path.join(ROOT, m), "utf8");
    for (const [, spec] of text.matchAll(/(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/g)) {
      const target = path.posix.normalize(`${path.posix.dirname(m)}/${spec}`);
      if (!path.posix.basename(target).startsWith("_") || target === "lib/_object.ts") continue;
      // A folder's private modules are its own and its subfolders' (lib/mcp/transports/ may use
      // lib/mcp/_x.ts); another folder imports only what is public.
      const home = path.posix.dirname(target), at = path.posix.dirname(m);
      if (at !== home && !at.startsWith(`${home}/`)) crossing.push(`${m} imports ${target}`);
    }
  }
  assert.deepEqual(crossing, []);
});

Deno.test("the modules of lib/ import each other without a cycle, type-only imports included", () => {
  const graph = new Map<string, string[]>();
  for (const m of modules()) {
    // Code only: a JSDoc example's import is not the module's.
    const text = fs.readFileSync(path.join(ROOT, m), "utf8").split("\n")
      .filter((line) => !/^\s*(\*|\/\/)/.test(line)).join("\n");
    const targets = [
      ...text.matchAll(/(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+\.ts)"/g),
    ].map(([, spec]) => path.posix.normalize(`${path.posix.dirname(m)}/${spec}`));
    graph.set(m, [...new Set(targets)]);
  }
  // Depth-first search; a module met again while still on the stack closes a cycle.
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (m: string, stack: string[]): void => {
    state.set(m, "open");
    for (const t of graph.get(m) ?? []) {
      if (state.get(t) === "open") {
        cycles.push([...stack.slice(stack.indexOf(t)), m, t].join(" → "));
      } else if (!state.has(t)) visit(t, [...stack, m]);
    }
    state.set(m, "done");
  };
  for (const m of graph.keys()) if (!state.has(m)) visit(m, []);
  assert.deepEqual(cycles, []);
});
