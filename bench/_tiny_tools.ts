/**
 * Tiny tool input schemas: 24 tools of the kind most MCP servers expose, each taking one to three
 * arguments (`{city}`, `{id, verbose?}`, `{url}`, `{query, limit?}` …), some with a nested object
 * of their own (`{location: {lat, lon}}`), each with a seeded generator of the arguments agents
 * send. Calls are a few dozen bytes: what costs is everything around the validation itself.
 *
 * @module
 */
import type { Args, WorkloadTool } from "./_mcp_tools.ts";
import type { Rand } from "./_rand.ts";

const CITIES = ["London", "Zürich", "New York", "São Paulo", "Tokyo", "Lagos", "Oslo", "Lima"];
const WORDS = ["error", "deploy", "invoice", "latency", "refund", "schema", "merge", "alert"];
const HOSTS = ["example.com", "docs.example.org", "api.example.net", "bank.example"];
const PATHS = ["/", "/readme", "/v1/items?page=2", "/a/b/c.json", "/search?q=x#top"];
const LANGS = ["en", "de", "fr", "ja", "pt-BR"];
const UNITS = ["metric", "imperial"];

const words = (r: Rand, lo: number, hi: number) =>
  Array.from({ length: r.int(lo, hi) }, () => r.pick(WORDS)).join(" ");
const url = (r: Rand) => `https://${r.pick(HOSTS)}${r.pick(PATHS)}`;
const uuid = (r: Rand) =>
  [8, 4, 4, 4, 12].map((n, i) =>
    (i === 2 ? "4" : "") + r.chars("0123456789abcdef", i === 2 ? n - 1 : n)
  ).join("-");
const pad = (n: number) => String(n).padStart(2, "0");
const date = (r: Rand) => `202${r.int(5, 7)}-${pad(r.int(1, 12))}-${pad(r.int(1, 28))}`;
const email = (r: Rand) => `${r.pick(["ana", "bo", "chen", "dee"])}@${r.pick(HOSTS)}`;
const maybe = (r: Rand, args: Args, key: string, value: () => unknown): Args => {
  if (r.chance(0.5)) args[key] = value();
  return args;
};

function tool(
  name: string,
  properties: Record<string, unknown>,
  required: string[],
  args: (r: Rand) => Args,
  closed = false,
): WorkloadTool {
  const schema: Record<string, unknown> = { type: "object", properties, required };
  if (closed) schema.additionalProperties = false;
  return { name, schema, draft: "2020-12", args };
}

const latLon = {
  type: "object",
  properties: {
    lat: { type: "number", minimum: -90, maximum: 90 },
    lon: { type: "number", minimum: -180, maximum: 180 },
  },
  required: ["lat", "lon"],
  additionalProperties: false,
};
const coords = (r: Rand) => ({
  lat: Math.round((r.float() * 180 - 90) * 1e4) / 1e4,
  lon: Math.round((r.float() * 360 - 180) * 1e4) / 1e4,
});

/** The 24 tiny tools; eight of them have a nested object. */
export const TINY_TOOLS: readonly WorkloadTool[] = [
  tool("weather.current", { city: { type: "string" } }, ["city"], (r) => ({
    city: r.pick(CITIES),
  })),
  tool(
    "weather.forecast",
    {
      city: { type: "string", minLength: 1 },
      days: { type: "integer", minimum: 1, maximum: 14 },
      units: { type: "string", enum: UNITS },
    },
    ["city"],
    (r) =>
      maybe(
        r,
        maybe(r, { city: r.pick(CITIES) }, "days", () => r.int(1, 14)),
        "units",
        () => r.pick(UNITS),
      ),
  ),
  tool(
    "issues.get",
    { id: { type: "integer", minimum: 1 }, verbose: { type: "boolean" } },
    ["id"],
    (r) => maybe(r, { id: r.int(1, 99999) }, "verbose", () => r.chance(0.5)),
    true,
  ),
  tool("fetch.url", { url: { type: "string", format: "uri" } }, ["url"], (r) => ({
    url: url(r),
  }), true),
  tool(
    "search.web",
    {
      query: { type: "string", minLength: 1 },
      limit: { type: "integer", minimum: 1, maximum: 100 },
    },
    ["query"],
    (r) => maybe(r, { query: words(r, 1, 4) }, "limit", () => r.int(1, 100)),
  ),
  tool(
    "time.now",
    { timezone: { type: "string" } },
    [],
    (r) => maybe(r, {}, "timezone", () => r.pick(["UTC", "Europe/Oslo", "Asia/Tokyo"])),
  ),
  tool(
    "translate.text",
    {
      text: { type: "string", maxLength: 5000 },
      to: { type: "string", pattern: "^[a-z]{2}(-[A-Z]{2})?$" },
    },
    ["text", "to"],
    (r) => ({ text: words(r, 2, 12), to: r.pick(LANGS) }),
    true,
  ),
  tool(
    "files.read",
    { path: { type: "string", minLength: 1 }, encoding: { enum: ["utf-8", "base64"] } },
    ["path"],
    (r) =>
      maybe(
        r,
        { path: `/srv/${r.pick(WORDS)}/${r.pick(WORDS)}.md` },
        "encoding",
        () => r.pick(["utf-8", "base64"]),
      ),
    true,
  ),
  tool(
    "files.list",
    { dir: { type: "string" }, recursive: { type: "boolean" } },
    ["dir"],
    (r) => maybe(r, { dir: `/srv/${r.pick(WORDS)}` }, "recursive", () => r.chance(0.5)),
  ),
  tool("user.lookup", { email: { type: "string", format: "email" } }, ["email"], (r) => ({
    email: email(r),
  }), true),
  tool("order.status", { order_id: { type: "string", format: "uuid" } }, ["order_id"], (r) => ({
    order_id: uuid(r),
  }), true),
  tool(
    "calendar.day",
    { date: { type: "string", format: "date" }, calendar: { type: "string" } },
    ["date"],
    (r) => maybe(r, { date: date(r) }, "calendar", () => r.pick(["work", "home"])),
  ),
  tool(
    "math.add",
    { a: { type: "number" }, b: { type: "number" } },
    ["a", "b"],
    (r) => ({ a: r.int(-1000, 1000) / 4, b: r.int(-1000, 1000) }),
    true,
  ),
  tool("echo", { message: { type: "string" } }, ["message"], (r) => ({
    message: words(r, 1, 6),
  })),
  tool(
    "logs.tail",
    {
      service: { type: "string", pattern: "^[a-z][a-z0-9-]*$" },
      lines: { type: "integer", minimum: 1, maximum: 1000 },
    },
    ["service"],
    (r) => maybe(r, { service: `${r.pick(WORDS)}-api` }, "lines", () => r.int(1, 1000)),
  ),
  tool(
    "notes.create",
    {
      title: { type: "string", minLength: 1, maxLength: 200 },
      tags: { type: "array", items: { type: "string" }, maxItems: 10 },
    },
    ["title"],
    (r) =>
      maybe(
        r,
        { title: words(r, 1, 5) },
        "tags",
        () => Array.from({ length: r.int(0, 3) }, () => r.pick(WORDS)),
      ),
    true,
  ),
  // With a nested object: the mistake is often inside it.
  tool(
    "weather.at",
    { location: latLon, units: { type: "string", enum: UNITS } },
    ["location"],
    (r) => maybe(r, { location: coords(r) }, "units", () => r.pick(UNITS)),
    true,
  ),
  tool(
    "places.nearby",
    { center: latLon, radius_m: { type: "integer", minimum: 1, maximum: 50000 } },
    ["center", "radius_m"],
    (r) => ({ center: coords(r), radius_m: r.int(1, 50000) }),
  ),
  tool(
    "http.get",
    {
      url: { type: "string", format: "uri" },
      headers: {
        type: "object",
        properties: {
          accept: { type: "string" },
          authorization: { type: "string", pattern: "^Bearer [A-Za-z0-9._-]+$" },
        },
        additionalProperties: false,
      },
    },
    ["url"],
    (r) =>
      maybe(
        r,
        { url: url(r) },
        "headers",
        () =>
          maybe(r, { accept: "application/json" }, "authorization", () =>
            `Bearer ${r.chars("abcdef0123456789", 24)}`),
      ),
  ),
  tool(
    "email.send",
    {
      to: { type: "string", format: "email" },
      subject: { type: "string", maxLength: 120 },
      options: {
        type: "object",
        properties: { cc: { type: "string", format: "email" }, draft: { type: "boolean" } },
        additionalProperties: false,
      },
    },
    ["to", "subject"],
    (r) =>
      maybe(
        r,
        { to: email(r), subject: words(r, 1, 6) },
        "options",
        () => maybe(r, { draft: r.chance(0.5) }, "cc", () => email(r)),
      ),
    true,
  ),
  tool(
    "issues.comment",
    {
      issue: {
        type: "object",
        properties: {
          repo: { type: "string", pattern: "^[\\w.-]+/[\\w.-]+$" },
          number: { type: "integer", minimum: 1 },
        },
        required: ["repo", "number"],
      },
      body: { type: "string", minLength: 1 },
    },
    ["issue", "body"],
    (r) => ({
      issue: { repo: `acme/${r.pick(WORDS)}`, number: r.int(1, 5000) },
      body: words(r, 3, 12),
    }),
  ),
  tool(
    "db.query",
    {
      sql: { type: "string", minLength: 1 },
      params: {
        type: "object",
        properties: {
          limit: { type: "integer", minimum: 0, maximum: 1000 },
          offset: { type: "integer", minimum: 0 },
        },
        additionalProperties: false,
      },
    },
    ["sql"],
    (r) =>
      maybe(
        r,
        { sql: `select * from ${r.pick(WORDS)}` },
        "params",
        () => maybe(r, { limit: r.int(0, 1000) }, "offset", () => r.int(0, 500)),
      ),
  ),
  tool(
    "reminder.set",
    {
      at: { type: "string", format: "date" },
      repeat: {
        type: "object",
        properties: {
          every: { type: "integer", minimum: 1, maximum: 365 },
          unit: { type: "string", enum: ["day", "week", "month"] },
        },
        required: ["every", "unit"],
        additionalProperties: false,
      },
    },
    ["at"],
    (r) =>
      maybe(r, { at: date(r) }, "repeat", () => ({
        every: r.int(1, 365),
        unit: r.pick(["day", "week", "month"]),
      })),
    true,
  ),
  tool(
    "map.route",
    { from: latLon, to: latLon },
    ["from", "to"],
    (r) => ({ from: coords(r), to: coords(r) }),
    true,
  ),
];
