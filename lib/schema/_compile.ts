/**
 * Compiles a schema once into a tree of closures; validating a value then walks only the value.
 * Issues carry raw path segments; `validate.ts` formats, filters and sorts them. Each keyword
 * family compiles in its own module (`_compile_type.ts`, `_compile_applicator.ts`,
 * `_compile_number.ts`, `_compile_string.ts`, `_compile_array.ts`, `_compile_object.ts`), as the
 * generated code does in `_codegen.ts`; this module follows references, memoizes subschemas and
 * puts one schema's checks together.
 */
import { isObject } from "../_object.ts";
import { type Location, RefIndex } from "./refs.ts";
import { formatPath, formatSegment } from "./path.ts";
import type { JsonSchema } from "./types.ts";
import {
  ALWAYS,
  type Check,
  type CheckRun,
  report,
  type SchemaSite,
  tooDeep,
  typeName,
} from "./_compile_context.ts";
import { compileEnumConst, compileType } from "./_compile_type.ts";
import { compileApplicators } from "./_compile_applicator.ts";
import { compileNumber } from "./_compile_number.ts";
import { compileString } from "./_compile_string.ts";
import { compileArray } from "./_compile_array.ts";
import { compileObject } from "./_compile_object.ts";

/** Compiles every subschema of one document, following its `$ref`s. */
export class Compiler {
  readonly #index: RefIndex;
  readonly #memo = new Map<object, Check>();

  constructor(root: JsonSchema) {
    this.#index = new RefIndex(root);
  }

  /** Compiles the document's root. */
  root(root: JsonSchema): Check {
    return this.compile(
      root,
      this.#index.locationOf(root) ?? { base: "", segments: [] },
      "false",
    );
  }

  /** Compiles one subschema at `loc`; `falseKeyword` names the keyword a `false` schema reports as. */
  compile(
    schema: JsonSchema | unknown,
    loc: Location,
    falseKeyword: string,
  ): Check {
    const spath = formatPath(loc.segments);
    if (schema === true) return ALWAYS;
    if (schema === false) {
      const message = falseKeyword === "false" ? "no value is allowed here" : "not allowed";
      return (_v, ctx) => report(ctx, falseKeyword, message, spath);
    }
    if (!isObject(schema)) {
      const message =
        `the schema at ${spath} is not an object or boolean; nothing validates against it`;
      return (_v, ctx) => report(ctx, "schema", message, spath);
    }
    const known = this.#memo.get(schema);
    if (known) return known;
    // A placeholder for recursive references met while this schema is being built.
    const slot: { check?: Check } = {};
    this.#memo.set(schema, (v, ctx) => slot.check!(v, ctx));
    slot.check = this.#build(this.#site(schema, loc, spath));
    this.#memo.set(schema, slot.check);
    return slot.check;
  }

  /** The schema object at `loc`, as its keyword families compile it. */
  #site(s: Record<string, unknown>, loc: Location, spath: string): SchemaSite {
    return {
      s,
      spath,
      has: (k) => Object.hasOwn(s, k),
      kw: (k) => spath + formatSegment(k),
      sub: (schema, segs, falseKeyword = "false") => {
        const child = typeof schema === "object" && schema !== null
          ? this.#index.locationOf(schema as JsonSchema)
          : undefined;
        return this.compile(
          schema,
          child ?? { base: loc.base, segments: [...loc.segments, ...segs] },
          falseKeyword,
        );
      },
      resolve: (ref) => {
        const target = this.#index.resolve(ref, loc);
        return target && this.compile(target.schema, target.location, "false");
      },
      descend: (check, value, seg, ctx) => {
        if (ctx.depth >= ctx.maxDepth) return tooDeep(ctx, spath, seg);
        ctx.path.push(seg);
        ctx.depth++;
        const ok = check(value, ctx);
        ctx.depth--;
        ctx.path.pop();
        return ok;
      },
    };
  }

  /** One schema object's checks, by family, in the order the generated code runs them. */
  #build(site: SchemaSite): Check {
    const type = compileType(site);
    return assemble({
      typeTest: type?.test,
      typeMessage: type?.message ?? "",
      typeWhere: site.kw("type"),
      generic: [...compileEnumConst(site), ...compileApplicators(site)],
      numeric: compileNumber(site),
      strings: compileString(site),
      arrays: compileArray(site),
      objects: compileObject(site),
    });
  }
}

interface Parts {
  typeTest: ((v: unknown) => boolean) | undefined;
  typeMessage: string;
  typeWhere: string;
  generic: Check[];
  numeric: Check[];
  strings: Check[];
  arrays: Check[];
  objects: Check[];
}

function runAll(checks: Check[], v: unknown, ctx: CheckRun): boolean {
  let ok = true;
  for (let i = 0; i < checks.length; i++) {
    if (!checks[i](v, ctx)) {
      ok = false;
      if (!ctx.issues) return false;
    }
  }
  return ok;
}

/**
 * One schema's check: `type` first (a mismatch is the only issue), then the keywords for any
 * value, then those for the value's kind.
 */
function assemble(p: Parts): Check {
  const {
    typeTest,
    typeMessage,
    typeWhere,
    generic,
    numeric,
    strings,
    arrays,
    objects,
  } = p;
  return (v, ctx) => {
    if (typeTest && !typeTest(v)) {
      return report(
        ctx,
        "type",
        `${typeMessage}, got ${typeName(v)}`,
        typeWhere,
      );
    }
    let ok = generic.length === 0 || runAll(generic, v, ctx);
    if (!ok && !ctx.issues) return false;
    if (typeof v === "number") {
      if (numeric.length && !runAll(numeric, v, ctx)) ok = false;
    } else if (typeof v === "string") {
      if (strings.length && !runAll(strings, v, ctx)) ok = false;
    } else if (Array.isArray(v)) {
      if (arrays.length && !runAll(arrays, v, ctx)) ok = false;
    } else if (typeof v === "object" && v !== null) {
      if (objects.length && !runAll(objects, v, ctx)) ok = false;
    }
    return ok;
  };
}
