/**
 * Arbitraries for the asserted string formats. They stay on the plain, common side of each
 * grammar (lower-case host names, dot-atom e-mail addresses, `https:` URIs) so that every value is
 * valid for the validator's format checks and looks like what a caller would send.
 */
import fc from "fast-check";

const two = (n: number): string => String(n).padStart(2, "0");

const label: fc.Arbitrary<string> = fc.stringMatching(
  /^[a-z](?:[a-z0-9-]{0,6}[a-z0-9])?$/,
);

const hostname: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(label, { minLength: 0, maxLength: 2 }),
    fc.constantFrom("com", "org", "bank", "eu"),
  )
  .map(([labels, tld]) => [...labels, tld].join("."));

const date: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 1970, max: 2099 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
  )
  .map(([y, m, d]) => `${y}-${two(m)}-${two(d)}`);

const offset: fc.Arbitrary<string> = fc.oneof(
  fc.constant("Z"),
  fc
    .tuple(
      fc.constantFrom("+", "-"),
      fc.integer({ min: 0, max: 14 }),
      fc.constantFrom(0, 30, 45),
    )
    .map(([s, h, m]) => `${s}${two(h)}:${two(m)}`),
);

const time: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 59 }),
    fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
    offset,
  )
  .map(([h, m, s, ms, off]) =>
    `${two(h)}:${two(m)}:${two(s)}${
      ms === undefined ? "" : `.${String(ms).padStart(3, "0")}`
    }${off}`
  );

const ipv4: fc.Arbitrary<string> = fc
  .tuple(...[0, 1, 2, 3].map(() => fc.integer({ min: 0, max: 255 })))
  .map((parts) => parts.join("."));

const group: fc.Arbitrary<string> = fc.integer({ min: 0, max: 0xffff }).map((
  n,
) => n.toString(16));

const ipv6: fc.Arbitrary<string> = fc.oneof(
  fc.array(group, { minLength: 8, maxLength: 8 }).map((g) => g.join(":")),
  fc.tuple(group, group).map(([a, b]) => `fe80::${a}:${b}`),
);

const email: fc.Arbitrary<string> = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9]{1,10}(?:\.[a-z0-9]{1,6})?$/),
    hostname,
  )
  .map(([local, host]) => `${local}@${host}`);

const uri: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("https", "http", "urn"),
    hostname,
    fc.array(fc.stringMatching(/^[a-z0-9-]{1,8}$/), { maxLength: 3 }),
  )
  .map(([scheme, host, path]) =>
    scheme === "urn" ? `urn:${host}:${path.join(":")}` : `${scheme}://${host}/${path.join("/")}`
  );

/** Arbitraries for the formats the validator asserts, by name. */
export const FORMAT_ARBITRARIES: Readonly<
  Record<string, fc.Arbitrary<string>>
> = {
  "date": date,
  "date-time": fc.tuple(date, time).map(([d, t]) => `${d}T${t}`),
  "email": email,
  "hostname": hostname,
  "ipv4": ipv4,
  "ipv6": ipv6,
  "time": time,
  "uri": uri,
  "uuid": fc.uuid(),
};
