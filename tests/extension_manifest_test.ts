/**
 * The extension's manifest and its `jsonValidation` schema: what VS Code reads before the server
 * runs. The schema is checked with Ajv (draft-07, as VS Code's JSON support reads it) against the
 * corpus and the fixture drafts, and against what `parseToolSpec` requires.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import { TOOL_FIELDS } from "../lib/report/locations.ts";
import { parseToolSpec, ToolSpecError } from "../mod.ts";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);
const EXTENSION = path.join(ROOT, "extension");
const manifest = JSON.parse(
  fs.readFileSync(path.join(EXTENSION, "package.json"), "utf8"),
);
const toolSchema = JSON.parse(
  fs.readFileSync(path.join(ROOT, "schemas", "tool.schema.json"), "utf8"),
);

// deno-lint-ignore no-explicit-any
const ajv = new (Ajv as any)({ allErrors: true });
ajv.addVocabulary([
  "enumDescriptions",
  "defaultSnippets",
  "markdownDescription",
]);
const validate = ajv.compile(toolSchema);

function* corpusVersions(): Generator<[string, unknown]> {
  const tools = path.join(ROOT, "corpus", "tools");
  for (const name of fs.readdirSync(tools).sort()) {
    for (const file of fs.readdirSync(path.join(tools, name)).sort()) {
      if (/^\d+\.\d+\.\d+\.json$/.test(file)) {
        const p = path.join(tools, name, file);
        yield [p, JSON.parse(fs.readFileSync(p, "utf8"))];
      }
    }
  }
}

Deno.test("manifest: jsonValidation covers *.tool.json and nothing broader, with the shipped schema", () => {
  assert.deepEqual(manifest.contributes.jsonValidation, [
    { fileMatch: "*.tool.json", url: "./dist/tool.schema.json" },
  ]);
  assert.deepEqual(manifest.activationEvents, [
    "workspaceContains:**/*.tool.json",
  ]);
  assert.equal(manifest.main, "./dist/extension.js");
});

Deno.test("manifest: the command and the settings have the ids the client and server read", () => {
  assert.deepEqual(
    manifest.contributes.commands.map((c: { command: string }) => c.command),
    [
      "toolEstate.checkAll",
    ],
  );
  const props = manifest.contributes.configuration.properties;
  assert.deepEqual(Object.keys(props).sort(), [
    "toolEstate.estateFolder",
    "toolEstate.files",
    "toolEstate.run",
    "toolEstate.trace.server",
  ]);
  assert.equal(props["toolEstate.estateFolder"].default, "");
  assert.equal(props["toolEstate.files"].default, "**/*.tool.json");
  assert.deepEqual(props["toolEstate.run"].enum, ["onType", "onSave"]);
  assert.deepEqual(props["toolEstate.trace.server"].enum, [
    "off",
    "messages",
    "verbose",
  ]);
});

Deno.test("manifest: @types/vscode is not newer than engines.vscode (vsce refuses to package otherwise)", () => {
  const engine = manifest.engines.vscode.replace(/^\^/, "").split(".").map(
    Number,
  );
  const types = manifest.devDependencies["@types/vscode"].replace(/^\^/, "")
    .split(".").map(Number);
  assert.ok(
    types[0] < engine[0] || (types[0] === engine[0] && types[1] <= engine[1]),
    `${types.join(".")} > ${engine.join(".")}`,
  );
});

Deno.test("tool.schema.json accepts every published version in corpus/ and the fixture drafts", () => {
  const fixtures = path.join(ROOT, "tests", "testdata", "extension");
  const files: [string, unknown][] = [
    ...corpusVersions(),
    ...fs.readdirSync(fixtures).filter((f) => f.endsWith(".tool.json")).map((
      f,
    ): [string, unknown] => [
      f,
      JSON.parse(fs.readFileSync(path.join(fixtures, f), "utf8")),
    ]),
  ];
  assert.ok(files.length >= 10);
  for (const [file, spec] of files) {
    assert.equal(
      validate(spec),
      true,
      `${file}: ${JSON.stringify(validate.errors)}`,
    );
  }
});

Deno.test("tool.schema.json knows exactly the spec's fields and requires what parseToolSpec requires", () => {
  assert.deepEqual(
    Object.keys(toolSchema.properties).sort(),
    ["$schema", ...TOOL_FIELDS].sort(),
  );
  for (const field of toolSchema.required as string[]) {
    assert.match(
      toolSchema.properties[field].description,
      /^Required\. /,
      field,
    );
  }
  let required: string[] = [];
  try {
    parseToolSpec({});
  } catch (e) {
    assert.ok(e instanceof ToolSpecError);
    required = e.problems.map((p) => / is required$/.exec(p) ? p.split(" ")[0] : "").filter(
      Boolean,
    );
  }
  assert.deepEqual([...toolSchema.required].sort(), required.sort());
});

Deno.test("tool.schema.json refuses what parseToolSpec refuses: a missing field, an unknown one, a bad enum or version", () => {
  const [, base] = corpusVersions().next().value as [
    string,
    Record<string, unknown>,
  ];
  const bad: Record<string, unknown>[] = [
    (({ sideEffect: _, ...rest }) => rest)(base),
    { ...base, extra: 1 },
    { ...base, dataClassification: "secret" },
    { ...base, version: "v1.0" },
    { ...base, description: "" },
    { ...base, name: ".hidden" },
  ];
  for (const spec of bad) {
    assert.equal(validate(spec), false, JSON.stringify(spec).slice(0, 80));
    assert.throws(() => parseToolSpec(spec), ToolSpecError);
  }
});
