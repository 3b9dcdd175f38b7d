/** Shared fixtures for the estate-on-disk tests: specs, temporary estates, the child publisher. */
import type { JsonSchema, StoredCall, ToolSpec } from "../mod.ts";

/** The repository's root (children run here, so that deno.json's imports apply). */
export const ROOT: string = new URL("..", import.meta.url).pathname;

/** The child process that publishes a spec file to an estate (see `_store_publisher.ts`). */
export const PUBLISHER: string = new URL("./_store_publisher.ts", import.meta.url).pathname;

/** A fixed clock: every call returns the next second after 2026-01-05T09:00:00Z. */
export function clock(): () => Date {
  let t = Date.parse("2026-01-05T09:00:00.000Z");
  return () => new Date(t += 1000);
}

/** `payments.lookup` at a version, with optional changes. */
export function lookup(
  version: string,
  changes: Partial<ToolSpec> = {},
): ToolSpec {
  return {
    name: "payments.lookup",
    version,
    title: "Look up a payment",
    description:
      "Returns a wholesale payment's status by reference. Reads the payments system of record.",
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" } },
      required: ["reference"],
    },
    sideEffect: "read",
    requiredScopes: ["payments:read"],
    dataClassification: "confidential",
    tenants: ["wholesale"],
    owner: "payments-platform",
    ...changes,
  };
}

/**
 * An object schema with `n` properties, each with a description of about `descriptionBytes`
 * (bulk that costs little to check but much to write).
 */
export function largeSchema(
  n: number,
  tag: string,
  descriptionBytes = 40,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const filler = " Free text as agreed with the counterparty.".repeat(
    Math.ceil(descriptionBytes / 43),
  );
  for (let i = 0; i < n; i++) {
    properties[`field_${i}`] = {
      type: "string",
      maxLength: 64,
      description: `Field ${i} of the ${tag} remittance block.${filler}`.slice(
        0,
        descriptionBytes,
      ),
    };
  }
  return { type: "object", properties, required: ["field_0"] };
}

/** A stored call. */
export function call(
  version: string,
  args: unknown,
  principal = "ops-bot",
): StoredCall {
  return {
    version,
    arguments: args,
    principal,
    at: "2026-01-05T09:00:00.000Z",
  };
}

/**
 * Runs `fn` with a fresh temporary folder (under the repository's `.scratch/`, which the test task
 * may write), removed afterwards.
 */
export async function withTempDir(
  fn: (dir: string) => void | Promise<void>,
): Promise<void> {
  const scratch = new URL("../.scratch/", import.meta.url).pathname;
  await Deno.mkdir(scratch, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: scratch, prefix: "store-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every file under `dir` (relative path → bytes), to show that nothing changed. */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    for (const e of Deno.readDirSync(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) walk(p, `${rel}${e.name}/`);
      else {out.set(
          rel + e.name,
          new TextDecoder().decode(Deno.readFileSync(p)),
        );}
    }
  };
  walk(dir, "");
  return out;
}
