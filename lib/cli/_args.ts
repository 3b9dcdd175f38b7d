/** A tiny, strict argument parser: flags with values, boolean flags, positionals. */
import { isToolName } from "../estate/spec.ts";
import { Version } from "../compat/semver.ts";

/** Exit codes: 0 ok, 1 a check failed (or a refusal), 2 a usage or input error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Parsed arguments. */
export interface Args {
  positionals: string[];
  flags: Map<string, string | true>;
}

/** A usage error: exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Parses `argv` given which flags take a value and which are booleans; anything else is a usage
 * error. `--flag=value` and `--flag value` are both accepted.
 */
export function parseArgs(
  argv: string[],
  spec: { values: string[]; booleans: string[] },
): Args {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith("--")) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = a.slice(2, eq === -1 ? undefined : eq);
    if (spec.booleans.includes(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    } else if (spec.values.includes(name)) {
      const value = eq !== -1 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined || (eq === -1 && value.startsWith("--"))) {
        throw new UsageError(`--${name} needs a value`);
      }
      flags.set(name, value);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return { positionals, flags };
}

/** Splits `NAME@VERSION`. */
export function parseToolRef(
  text: string | undefined,
  usage: string,
): { name: string; version: string } {
  const at = text?.lastIndexOf("@") ?? -1;
  if (!text || at <= 0 || at === text.length - 1) {
    throw new UsageError(
      `expected NAME@VERSION, got ${JSON.stringify(text ?? "")}; usage: ${usage}`,
    );
  }
  const name = text.slice(0, at), version = text.slice(at + 1);
  if (!isToolName(name)) {
    throw new UsageError(
      `${
        JSON.stringify(name)
      } is not a tool name (1-128 characters of A-Z a-z 0-9 _ . - not starting with "."); usage: ${usage}`,
    );
  }
  try {
    Version.parse(version);
  } catch {
    throw new UsageError(
      `${JSON.stringify(version)} is not a version like 1.2.0; usage: ${usage}`,
    );
  }
  return { name, version };
}
