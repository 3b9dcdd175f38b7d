/**
 * The `toolEstate.files` glob, matched against workspace-relative paths with `/` separators, as
 * VS Code's glob patterns are: `**` spans folders, `*` and `?` stay within one, `{a,b}` picks one
 * of several, `[...]` is a character class. And the glob of the estate's own version files.
 *
 * @module
 */

/**
 * Compiles a glob to a regular expression over the whole path.
 *
 * @param glob E.g. `**\/*.tool.json` or `tools/{draft,next}/*.tool.json`.
 * @returns The expression.
 * @throws {SyntaxError} When a `{` or `[` is not closed.
 */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  let depth = 0; // inside {…}
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        const slashAfter = glob[i + 2] === "/";
        if (atStart && slashAfter) {
          out += "(?:[^/]*/)*"; // `**/`: any number of folders, including none
          i += 2;
          continue;
        }
        out += ".*";
        i += 1;
        continue;
      }
      out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "{") {
      depth++;
      out += "(?:";
    } else if (c === "}" && depth > 0) {
      depth--;
      out += ")";
    } else if (c === "," && depth > 0) out += "|";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) {
        throw new SyntaxError(
          `Invalid glob ${JSON.stringify(glob)}: unclosed [`,
        );
      }
      let body = glob.slice(i + 1, end).replace(/\\/g, "\\\\");
      if (body.startsWith("!")) body = "^" + body.slice(1);
      out += `[${body}]`;
      i = end;
    } else out += c.replace(/[.+^$()|\\\]]/g, "\\$&");
  }
  if (depth) {
    throw new SyntaxError(`Invalid glob ${JSON.stringify(glob)}: unclosed {`);
  }
  return new RegExp(`^${out}$`);
}

/**
 * Whether a workspace-relative path matches a glob. A glob without a `/` also matches by file
 * name alone, as `*.tool.json` does in `files.exclude`.
 *
 * @param glob The pattern.
 * @param relativePath The path, relative to the workspace folder, with `/` separators.
 * @returns True when it matches.
 */
export function matchesGlob(glob: string, relativePath: string): boolean {
  const re = globToRegExp(glob);
  if (re.test(relativePath)) return true;
  if (!glob.includes("/")) {
    const name = relativePath.slice(relativePath.lastIndexOf("/") + 1);
    return re.test(name);
  }
  return false;
}

/**
 * The glob of the estate's own version files, `<estateFolder>/tools/<name>/<version>.json` (not
 * `lifecycle.json`, not `calls.jsonl`), as VS Code matches a document filter's string pattern:
 * against the file's absolute path.
 *
 * @param estateFolder The `toolEstate.estateFolder` setting: relative to a workspace folder, or
 *   absolute; empty (each file's estate found from its folder) gives every estate's,
 *   `**\/tools/*\/[0-9]*.json`.
 * @returns The glob: `**\/corpus/tools/*\/[0-9]*.json` for `corpus`; for a relative folder any
 *   folder of that name (its `..` steps dropped), for an absolute one that folder.
 */
export function estateFilesGlob(estateFolder: string): string {
  const folder = estateFolder.replace(/\\/g, "/").replace(/\/+$/, "");
  const files = "tools/*/[0-9]*.json";
  if (folder.startsWith("/") || /^[A-Za-z]:\//.test(folder)) return `${folder}/${files}`;
  const rest = folder.split("/").filter((s) => s !== "" && s !== "." && s !== "..").join("/");
  return rest ? `**/${rest}/${files}` : `**/${files}`;
}
