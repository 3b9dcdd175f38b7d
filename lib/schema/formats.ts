/**
 * Format assertions for `format`: each check runs in time linear in the string, by hand-written
 * scanning or anchored regular expressions without nested quantifiers.
 *
 * @module
 */

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** The value of `n` ASCII digits at `i`, or -1 if any is not a digit. */
function digits(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Whether `s` holds a valid RFC 3339 full-date at `i` (10 characters). */
function dateAt(s: string, i: number): boolean {
  if (s.charCodeAt(i + 4) !== 45 || s.charCodeAt(i + 7) !== 45) return false; // "-"
  const y = digits(s, i, 4), mo = digits(s, i + 5, 2), d = digits(s, i + 8, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1) return false;
  return d <= (mo === 2 && isLeapYear(y) ? 29 : DAYS[mo]);
}

/** Whether `s` from `i` to its end is a valid RFC 3339 full-time (offset required). */
function timeFrom(s: string, i: number): boolean {
  if (
    s.length - i < 9 || s.charCodeAt(i + 2) !== 58 || s.charCodeAt(i + 5) !== 58
  ) return false; // ":"
  const h = digits(s, i, 2),
    mi = digits(s, i + 3, 2),
    sec = digits(s, i + 6, 2);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60) return false;
  let j = i + 8;
  if (s.charCodeAt(j) === 46) { // "." then at least one digit
    j++;
    const start = j;
    while (j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
    if (j === start) return false;
  }
  let offset = 0;
  const z = s.charCodeAt(j);
  if (z === 90 || z === 122) { // Z z
    if (j + 1 !== s.length) return false;
  } else if (z === 43 || z === 45) { // + -
    if (s.length - j !== 6 || s.charCodeAt(j + 3) !== 58) return false;
    const oh = digits(s, j + 1, 2), om = digits(s, j + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return false;
    offset = (z === 45 ? -1 : 1) * (oh * 60 + om);
  } else return false;
  if (sec === 60) {
    // A leap second is only ever 23:59:60 UTC.
    return ((h * 60 + mi - offset) % 1440 + 1440) % 1440 === 23 * 60 + 59;
  }
  return true;
}

/** RFC 3339 `full-date`, with real month lengths and leap years. */
export function isDate(s: string): boolean {
  return s.length === 10 && dateAt(s, 0);
}

/** RFC 3339 `full-time` (offset required); a leap second only at 23:59:60 UTC. */
export function isTime(s: string): boolean {
  return timeFrom(s, 0);
}

/** RFC 3339 `date-time`: a date, `T` (either case), a time. */
export function isDateTime(s: string): boolean {
  const t = s.charCodeAt(10);
  return (t === 84 || t === 116) && dateAt(s, 0) && timeFrom(s, 11);
}

/** Dotted-quad IPv4 with no leading zeros. */
export function isIpv4(s: string): boolean {
  const parts = s.split(".");
  if (parts.length !== 4) return false;
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255) return false;
  }
  return true;
}

/** RFC 4291 text form of IPv6, with an optional trailing IPv4 part; no zone identifier. */
export function isIpv6(s: string): boolean {
  if (s.length > 45) return false;
  const lastColon = s.lastIndexOf(":");
  if (lastColon === -1) return false;
  const tail = s.slice(lastColon + 1);
  const tail4 = tail.includes(".");
  let body = s;
  if (tail4) {
    if (!isIpv4(tail)) return false;
    body = s.slice(0, lastColon + 1);
    if (!body.endsWith("::")) body = body.slice(0, -1);
  }
  const max = tail4 ? 6 : 8;
  const parts = body.split("::");
  if (parts.length > 2) return false;
  const groups = (x: string): string[] => x === "" ? [] : x.split(":");
  const hex = (g: string): boolean => /^[0-9A-Fa-f]{1,4}$/.test(g);
  if (parts.length === 1) {
    const g = groups(parts[0]);
    return g.length === max && g.every(hex);
  }
  const all = [...groups(parts[0]), ...groups(parts[1])];
  return all.length <= max - 1 && all.every(hex);
}

const QUOTED = /^"(?:[^"\\\r\n]|\\.)*"$/;

/** Character classes by ASCII code: 1 a letter or digit, 2 `-`, 4 another `atext` character. */
const CHAR_CLASS = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") {
  CHAR_CLASS[c.charCodeAt(0)] = 1;
}
CHAR_CLASS[45] = 2; // -
for (const c of "!#$%&'*+/=?^_`{|}~") CHAR_CLASS[c.charCodeAt(0)] = 4;

/**
 * RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens (63 at most), 253
 * chars at most. One scan of the characters.
 */
export function isHostname(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 253) return false;
  let start = 0; // where the current label starts
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 46;
    if (c === 46) { // .
      const len = i - start;
      if (len === 0 || len > 63) return false;
      // A label starts and ends with a letter or digit.
      if (CHAR_CLASS[s.charCodeAt(start)] !== 1 || CHAR_CLASS[s.charCodeAt(i - 1)] !== 1) {
        return false;
      }
      start = i + 1;
    } else if (c >= 128 || (CHAR_CLASS[c] & 3) === 0) return false;
  }
  return true;
}

/** RFC 5321 dot-atom: `atext` runs joined by single dots. One scan of the characters. */
function isDotAtom(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  let last = 46; // as if after a dot: no leading dot
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (last === 46) return false;
    } else if (c >= 128 || CHAR_CLASS[c] === 0) return false;
    last = c;
  }
  return last !== 46;
}

/** RFC 5321 mailbox: dot-atom or quoted local part, `@`, a host name or an address literal. */
export function isEmail(s: string): boolean {
  const at = s.lastIndexOf("@");
  if (at <= 0 || at === s.length - 1) return false;
  const local = s.slice(0, at), domain = s.slice(at + 1);
  if (
    !(local.charCodeAt(0) === 34 ? QUOTED.test(local) : local.length <= 64 && isDotAtom(local))
  ) return false;
  if (
    domain.charCodeAt(0) === 91 && domain.charCodeAt(domain.length - 1) === 93
  ) { // [ ]
    const lit = domain.slice(1, -1);
    return lit.startsWith("IPv6:") ? isIpv6(lit.slice(5)) : isIpv4(lit);
  }
  return isHostname(domain);
}

/** Whether a character code is a hex digit. */
const isHex = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** RFC 4122 UUID in its hyphenated hex form (8-4-4-4-12 hex digits). */
export function isUuid(s: string): boolean {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false; // -
    } else if (!isHex(c)) return false;
  }
  return true;
}

const UNRESERVED_SUB = "A-Za-z0-9\\-._~!$&'()*+,;=";
const PCHARS = new RegExp(`^(?:[${UNRESERVED_SUB}:@/]|%[0-9A-Fa-f]{2})*$`);
const QCHARS = new RegExp(`^(?:[${UNRESERVED_SUB}:@/?]|%[0-9A-Fa-f]{2})*$`);
const USERINFO = new RegExp(`^(?:[${UNRESERVED_SUB}:]|%[0-9A-Fa-f]{2})*$`);
const REGNAME = new RegExp(`^(?:[${UNRESERVED_SUB}]|%[0-9A-Fa-f]{2})*$`);

/** ASCII codes a path segment allows as they are (`pchar` without `%`), and `/`. */
const PCHAR = new Uint8Array(128);
for (
  const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/"
) {
  PCHAR[c.charCodeAt(0)] = 1;
}
/** ASCII codes a plain host name allows (letters, digits, `-`, `.`, `_`, `~`). */
const HOSTCHAR = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~") {
  HOSTCHAR[c.charCodeAt(0)] = 1;
}
const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * RFC 3986 absolute URI: a scheme, then an optional authority, path, query and fragment. One scan
 * of the characters; an authority other than a plain host and port (user info, an IP literal,
 * a percent-encoded or sub-delimiter host) goes the way of the grammar's parts.
 */
export function isUri(s: string): boolean {
  const n = s.length;
  if (n === 0 || !isAlpha(s.charCodeAt(0))) return false;
  let i = 1;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 58) break; // :
    if (!(isAlpha(c) || (c >= 48 && c <= 57) || c === 43 || c === 46 || c === 45)) return false;
  }
  if (i === n) return false;
  i++;
  if (s.charCodeAt(i) === 47 && s.charCodeAt(i + 1) === 47) { // an authority
    i += 2;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c === 47 || c === 63 || c === 35) break; // / ? #
      if (c === 58) { // a port: digits to the authority's end
        for (i++; i < n; i++) {
          const d = s.charCodeAt(i);
          if (d === 47 || d === 63 || d === 35) break;
          if (!(d >= 48 && d <= 57)) return isUriByParts(s);
        }
        break;
      }
      if (c >= 128 || !HOSTCHAR[c]) return isUriByParts(s);
    }
  }
  // The path, then the query (which allows `?`) and the fragment (which allows `?`, not `#`).
  let part = 0; // 0 path, 1 query, 2 fragment
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && PCHAR[c]) continue;
    if (c === 37) { // %
      if (!(i + 2 < n && isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2)))) return false;
      i += 2;
    } else if (c === 63) { // ?
      if (part === 0) part = 1;
    } else if (c === 35) { // #
      if (part === 2) return false;
      part = 2;
    } else return false;
  }
  return true;
}

/** `isUri` by the grammar's parts: the reference, and the way for an authority beyond a plain host. */
export function isUriByParts(s: string): boolean {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(s);
  if (!scheme) return false;
  let rest = s.slice(scheme[0].length);
  const hash = rest.indexOf("#");
  if (hash !== -1) {
    if (!QCHARS.test(rest.slice(hash + 1))) return false;
    rest = rest.slice(0, hash);
  }
  const q = rest.indexOf("?");
  if (q !== -1) {
    if (!QCHARS.test(rest.slice(q + 1))) return false;
    rest = rest.slice(0, q);
  }
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const authority = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash === -1 ? "" : rest.slice(slash);
    let hostport = authority;
    const at = authority.lastIndexOf("@");
    if (at !== -1) {
      if (!USERINFO.test(authority.slice(0, at))) return false;
      hostport = authority.slice(at + 1);
    }
    let host = hostport;
    if (hostport.startsWith("[")) {
      const close = hostport.indexOf("]");
      if (close === -1) return false;
      const lit = hostport.slice(1, close);
      if (
        !isIpv6(lit) &&
        !/^[Vv][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/.test(lit)
      ) {
        return false;
      }
      const port = hostport.slice(close + 1);
      if (port !== "" && !/^:\d*$/.test(port)) return false;
    } else {
      const colon = hostport.lastIndexOf(":");
      if (colon !== -1) {
        if (!/^\d*$/.test(hostport.slice(colon + 1))) return false;
        host = hostport.slice(0, colon);
      }
      if (!REGNAME.test(host)) return false;
    }
  }
  return PCHARS.test(rest);
}

/** The asserted format checks by name. */
export const FORMAT_CHECKS: Readonly<Record<string, (s: string) => boolean>> = {
  "date": isDate,
  "date-time": isDateTime,
  "email": isEmail,
  "hostname": isHostname,
  "ipv4": isIpv4,
  "ipv6": isIpv6,
  "time": isTime,
  "uri": isUri,
  "uuid": isUuid,
};
