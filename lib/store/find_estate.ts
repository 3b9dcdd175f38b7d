/**
 * Where a repository's estate folder is, found the same way by the CLI and the language server:
 * the folder that holds `estate.json`, looked for from a starting folder upwards, at each level in
 * the folder itself and in its `estate/` subfolder (the layout `estate init` writes), up to the
 * repository's root (the first folder with a `.git` entry) or the file system's root.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import { ESTATE_CONFIG_FILE } from "../estate/estate_config.ts";

/** The folder `estate init` creates the estate in, relative to the repository. */
export const DEFAULT_ESTATE_FOLDER = "estate";

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The estate folder for work started in `from`: the nearest folder, from `from` upwards, that
 * holds `estate.json`, or whose `estate/` subfolder does (the nearer of the two at each level is
 * the folder itself). The search stops after the repository's root (a folder holding `.git`).
 *
 * @param from The folder to start in (a working folder, or the folder of an open tool file).
 * @returns The estate folder's absolute path, or `undefined` when there is none.
 */
export function findEstateDir(from: string): string | undefined {
  let dir = path.resolve(from);
  for (;;) {
    if (isFile(path.join(dir, ESTATE_CONFIG_FILE))) return dir;
    const nested = path.join(dir, DEFAULT_ESTATE_FOLDER);
    if (isFile(path.join(nested, ESTATE_CONFIG_FILE))) return nested;
    if (fs.existsSync(path.join(dir, ".git"))) return undefined;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
