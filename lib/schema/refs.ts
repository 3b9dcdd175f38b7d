/**
 * `$ref` resolution inside one schema document: JSON pointers, `$id` base URIs and `$anchor`s.
 * Nothing is ever fetched: a reference outside the document is reported as unresolved.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { forEachSubschema } from "./subschemas.ts";
import type { JsonSchema, PathSegment } from "./types.ts";

/** The base URI given to a document without its own `$id`. */
export const DEFAULT_BASE = "tool-estate:/schema";

/** Where a schema sits: its base URI and its path from the document root. */
export interface Location {
  base: string;
  segments: PathSegment[];
}

/** A reference that resolved, with where its target sits. */
export interface Resolved {
  schema: JsonSchema;
  location: Location;
}

/** An index of a schema document's resources, anchors and subschema locations. */
export class RefIndex {
  readonly #resources = new Map<
    string,
    { schema: JsonSchema; segments: PathSegment[] }
  >();
  readonly #anchors = new Map<string, Resolved>();
  readonly #locations = new Map<object, Location>();

  constructor(root: JsonSchema) {
    this.#index(root, DEFAULT_BASE, [], new Set());
  }

  /** Where a subschema object of this document sits, if it was indexed. */
  locationOf(schema: JsonSchema): Location | undefined {
    return typeof schema === "object" ? this.#locations.get(schema) : undefined;
  }

  #index(
    schema: JsonSchema,
    base: string,
    segments: PathSegment[],
    seen: Set<object>,
  ): void {
    if (!isObject(schema) || seen.has(schema)) return;
    seen.add(schema);
    if (typeof schema.$id === "string") {
      const id = resolveUri(schema.$id, base);
      if (id !== undefined) {
        base = stripFragment(id);
        if (!this.#resources.has(base)) {
          this.#resources.set(base, { schema, segments });
        }
      }
    } else if (segments.length === 0) {
      this.#resources.set(base, { schema, segments });
    }
    if (typeof schema.$anchor === "string") {
      this.#anchors.set(`${base}#${schema.$anchor}`, {
        schema,
        location: { base, segments },
      });
    }
    this.#locations.set(schema, { base, segments });
    forEachSubschema(
      schema,
      (sub, segs) => this.#index(sub, base, [...segments, ...segs], seen),
    );
  }

  /** Resolves `ref` as written at `from`; `undefined` when the target is not in this document. */
  resolve(ref: string, from: Location): Resolved | undefined {
    const abs = resolveUri(ref, from.base);
    if (abs === undefined) return undefined;
    const hash = abs.indexOf("#");
    const doc = hash === -1 ? abs : abs.slice(0, hash);
    const fragment = hash === -1 ? "" : abs.slice(hash + 1);
    const resource = this.#resources.get(doc);
    if (!resource) return undefined;
    if (fragment === "") {
      return {
        schema: resource.schema,
        location: { base: doc, segments: resource.segments },
      };
    }
    if (!fragment.startsWith("/")) {
      return this.#anchors.get(`${doc}#${decodeURIComponentSafe(fragment)}`);
    }
    let node: unknown = resource.schema;
    const segments = [...resource.segments];
    for (const raw of fragment.slice(1).split("/")) {
      const token = decodeURIComponentSafe(raw)?.replaceAll("~1", "/")
        .replaceAll("~0", "~");
      if (token === undefined) return undefined;
      if (Array.isArray(node)) {
        if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= node.length) {
          return undefined;
        }
        node = node[Number(token)];
        segments.push(Number(token));
      } else if (isObject(node) && Object.hasOwn(node, token)) {
        node = node[token];
        segments.push(token);
      } else {
        return undefined;
      }
    }
    if (typeof node !== "boolean" && !isObject(node)) return undefined;
    const location = this.locationOf(node as JsonSchema) ??
      { base: doc, segments };
    return { schema: node as JsonSchema, location };
  }
}

function decodeURIComponentSafe(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function stripFragment(uri: string): string {
  const h = uri.indexOf("#");
  return h === -1 ? uri : uri.slice(0, h);
}

/** Resolves a URI reference against a base; `undefined` when it is not a valid reference. */
export function resolveUri(ref: string, base: string): string | undefined {
  try {
    if (ref.startsWith("#")) return stripFragment(base) + ref;
    return new URL(ref, base).href;
  } catch {
    return undefined;
  }
}
