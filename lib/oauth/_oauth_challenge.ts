// The `WWW-Authenticate` header of a 401 or 403 (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1):
// one or more challenges, each a scheme and comma-separated auth-params whose values are tokens
// or quoted strings.

/** A `Bearer` challenge's parameters that the OAuth client acts on. */
export interface BearerChallenge {
  /** `resource_metadata`: where the Protected Resource Metadata is (RFC 9728 §5.1). */
  resourceMetadata?: string;
  /** `scope`: the scopes the request needs, space-separated (RFC 6750 §3). */
  scope?: string;
  /** `error`, e.g. `invalid_token` or `insufficient_scope`. */
  error?: string;
  /** `error_description`. */
  errorDescription?: string;
}

/** One challenge: its scheme in lower case and its parameters (names in lower case). */
interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

/** Splits a `WWW-Authenticate` value into challenges; malformed tails are dropped. */
export function parseChallenges(header: string): Challenge[] {
  const out: Challenge[] = [];
  let rest = header;
  const skip = (): void => {
    rest = rest.replace(/^[\s,]+/, "");
  };
  for (skip(); rest !== ""; skip()) {
    const scheme = TOKEN.exec(rest);
    if (!scheme) break;
    rest = rest.slice(scheme[0].length);
    const challenge: Challenge = {
      scheme: scheme[0].toLowerCase(),
      params: {},
    };
    out.push(challenge);
    // token68 (e.g. `Basic abc==`) or auth-params, until the next scheme.
    rest = rest.replace(/^\s+/, "");
    const t68 = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(,|$))/.exec(rest);
    if (t68 && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=/.test(rest)) {
      rest = rest.slice(t68[0].length);
      skip();
      continue;
    }
    while (rest !== "") {
      const name = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)\s*=\s*/.exec(rest);
      if (!name) break; // the next challenge's scheme
      rest = rest.slice(name[0].length);
      let value: string;
      if (rest.startsWith('"')) {
        let i = 1;
        value = "";
        while (i < rest.length && rest[i] !== '"') {
          if (rest[i] === "\\" && i + 1 < rest.length) i++;
          value += rest[i];
          i++;
        }
        rest = rest.slice(i + 1);
      } else {
        const v = TOKEN.exec(rest);
        value = v ? v[0] : "";
        rest = rest.slice(value.length);
      }
      const key = name[1].toLowerCase();
      if (!(key in challenge.params)) challenge.params[key] = value;
      skip();
    }
  }
  return out;
}

/**
 * The `Bearer` challenge of a `WWW-Authenticate` header (the first, when several), or an empty
 * one when there is none.
 */
export function bearerChallenge(
  header: string | null | undefined,
): BearerChallenge {
  const bearer = parseChallenges(header ?? "").find((c) => c.scheme === "bearer");
  if (!bearer) return {};
  const p = bearer.params;
  const out: BearerChallenge = {};
  if (p.resource_metadata) out.resourceMetadata = p.resource_metadata;
  if (p.scope !== undefined && p.scope.trim() !== "") {
    out.scope = p.scope.trim();
  }
  if (p.error) out.error = p.error;
  if (p.error_description) out.errorDescription = p.error_description;
  return out;
}
