/**
 * One tool's folder: `<version>.json` per published version, `lifecycle.json`, `calls.jsonl`.
 * Dotfiles (`.lock`, `.tmp-*` leftovers of a crashed write, `.gitkeep`) are not part of the
 * estate; any other file is an error, so that nothing is silently skipped.
 */
import fs from "node:fs";
import path from "node:path";
import { compareVersions } from "../compat/semver.ts";
import type { LifecycleEntry } from "../estate/lifecycle.ts";
import { parseToolSpec, type ToolSpec, ToolSpecError } from "../estate/spec.ts";
import { CorpusError } from "./corpus_error.ts";
import { lineOf, parseJsonFile } from "./_json.ts";
import { type Lifecycle, parseLifecycle } from "./_lifecycle.ts";
import { readTextNoFollow, symlinkRefused } from "./_no_follow.ts";

/** The lifecycle file's name. */
export const LIFECYCLE_FILE = "lifecycle.json";
/** The stored calls file's name. */
export const CALLS_FILE = "calls.jsonl";

/** A version as found on disk. */
export interface DiskVersion {
  /** The spec. */
  spec: ToolSpec;
  /** Its file. */
  file: string;
  /** Its history: from `lifecycle.json`, or a publish at the file's time when it has none. */
  history: LifecycleEntry[];
}

/** A tool as found on disk. */
export interface DiskTool {
  /** The tool's name (its folder's name). */
  name: string;
  /** Its folder. */
  dir: string;
  /** Its versions, ascending. */
  versions: DiskVersion[];
  /**
   * `lifecycle.json` as it should read: the file's histories, plus a publish entry for each
   * version it lacks (a crash between writing the version and its lifecycle).
   */
  lifecycle: Lifecycle;
  /** Whether `lifecycle.json` already records every version. */
  lifecycleComplete: boolean;
}

/**
 * Reads and checks the text of a version file.
 *
 * @param text The file's text.
 * @param file Its path, for errors.
 * @returns The spec.
 * @throws {CorpusError} For invalid JSON (with line and column) or an invalid spec.
 */
export function parseVersionFile(text: string, file: string): ToolSpec {
  const value = parseJsonFile(text, file);
  try {
    return parseToolSpec(value, file);
  } catch (e) {
    if (!(e instanceof ToolSpecError)) throw e;
    throw new CorpusError(
      file,
      `not a valid tool spec: ${e.problems.join("; ")}`,
      { cause: e },
    );
  }
}

/**
 * Loads a tool's folder. Nothing is written.
 *
 * @param dir The folder.
 * @param name The tool's name: the folder's name, which every version's `name` must equal.
 * @returns The tool; without versions when the folder has none (a first publish that crashed).
 * @throws {CorpusError} For an unexpected file, a version file that is not valid JSON or not a
 *   valid spec or whose `name` or `version` does not match its place, a bad `lifecycle.json`, or
 *   a version file or `lifecycle.json` that is a symbolic link (never followed).
 */
export function loadToolDir(dir: string, name: string): DiskTool {
  const versions: DiskVersion[] = [];
  const lifecycleFile = path.join(dir, LIFECYCLE_FILE);
  // lifecycle.json first, then the folder: a writer links a version file before it renames in the
  // lifecycle that names it, so every version the lifecycle read here names is in the listing
  // read after it. (Listed first, a version published in between would be named but missing.)
  let lifecycleText: string | undefined;
  try {
    lifecycleText = readTextNoFollow(lifecycleFile);
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e;
  }
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.name.startsWith(".") || entry.name === CALLS_FILE) continue;
    if (entry.name === LIFECYCLE_FILE) continue;
    if (entry.isSymbolicLink()) throw symlinkRefused(file);
    if (!entry.isFile() || !entry.name.endsWith(".json")) {
      throw new CorpusError(
        file,
        `unexpected ${
          entry.isDirectory() ? "folder" : "file"
        }: a tool's folder holds <version>.json files, ${LIFECYCLE_FILE} and ${CALLS_FILE}`,
      );
    }
    const text = readTextNoFollow(file);
    const spec = parseVersionFile(text, file);
    if (`${spec.version}.json` !== entry.name) {
      throw new CorpusError(
        file,
        `version ${
          JSON.stringify(spec.version)
        } does not match the file name; version ${spec.version} belongs in ${spec.version}.json`,
        { line: lineOf(text, '"version"') },
      );
    }
    if (spec.name !== name) {
      throw new CorpusError(
        file,
        `name ${JSON.stringify(spec.name)} does not match the tool's folder ${
          JSON.stringify(name)
        }`,
        { line: lineOf(text, '"name"') },
      );
    }
    const published = fs.statSync(file).mtime.toISOString();
    versions.push({
      spec,
      file,
      history: [{ state: "active", at: published }],
    });
  }
  versions.sort((a, b) => compareVersions(a.spec.version, b.spec.version));
  const recorded = lifecycleText === undefined ? {} : parseLifecycle(lifecycleText, lifecycleFile);
  const lifecycle: Lifecycle = {};
  for (const [version, history] of Object.entries(recorded)) {
    const v = versions.find((v) => v.spec.version === version);
    if (!v) {
      throw new CorpusError(
        lifecycleFile,
        `${version}: there is no version file ${version}.json for this history`,
        { line: lineOf(lifecycleText!, JSON.stringify(version)) },
      );
    }
    v.history = history;
  }
  for (const v of versions) {
    lifecycle[v.spec.version] = v.history.map((h) => ({ ...h }));
  }
  const lifecycleComplete = versions.every((v) => Object.hasOwn(recorded, v.spec.version));
  return { name, dir, versions, lifecycle, lifecycleComplete };
}
