/**
 * Tool input schemas in the style of public MCP servers, each with a seeded generator of the
 * arguments agents send: a GitHub-like issue tool, a Slack-like message tool, a filesystem write
 * tool, a calendar tool, and a search tool with 306 declared properties (300 optional facets, a
 * few of them popular) of which a call sends a handful. Calls send different optional keys, long
 * strings under unbounded patterns (`^[A-Za-z0-9._-]+$`), formats, nested objects and arrays.
 *
 * {@linkcode genericArgs} makes arguments for schemas from elsewhere (server-everything's).
 *
 * @module
 */
import type { JsonSchema } from "../mod.ts";
import { cumulative, Rand } from "./_rand.ts";

/** A call's arguments. */
export type Args = Record<string, unknown>;

/** A tool of a workload. */
export interface WorkloadTool {
  /** The tool's name. */
  name: string;
  /** Its input schema. */
  schema: JsonSchema;
  /** The draft the schema is written for: `$schema` says so, else MCP's default 2020-12. */
  draft: "7" | "2020-12";
  /** Valid-by-construction arguments, as an agent would send them. */
  args: (r: Rand) => Args;
}

const WORDS = (
  "the a to of and in for is on with that this it be as at by from not are or we can when if " +
  "error build test deploy release fix add remove update change support config cache request " +
  "response timeout retry token user account payment invoice report schema tool server client " +
  "issue review merge branch commit pipeline logs metrics alert latency memory cpu disk queue " +
  "worker job schedule meeting agenda notes customer order refund balance transfer limit policy " +
  "data export import sync failing flaky slow crash regression docs readme example migration " +
  "upgrade version dependency security audit access permission role team owner quarterly draft"
).split(" ");
const ACCENTED = ["café", "naïve", "Zürich", "São Paulo", "👍", "🚀", "—", "“quoted”"];
const OWNERS = ["octo-org", "acme", "bank-platform", "torvalds", "microsoft", "a1b2c3", "denoland"];
const REPOS = [
  "tool-estate",
  "payments.api",
  "infra_terraform",
  "docs-site",
  "mcp-servers",
  ".github",
  "core",
  "web-app.v2",
];
const USERS = ["alice", "bob-smith", "carol99", "dave", "erin-ops", "frank", "grace-h", "heidi"];
const LABELS = ["bug", "enhancement", "good first issue", "p1", "needs-triage", "security", "docs"];
const DOMAINS = ["example.com", "bank.example", "corp.example.org", "mail.example.net"];
const TIMEZONES = ["Europe/London", "America/New_York", "Asia/Tokyo", "UTC", "Europe/Zurich"];

function sentence(r: Rand, lo: number, hi: number): string {
  const n = r.int(lo, hi);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(r.chance(0.02) ? r.pick(ACCENTED) : r.pick(WORDS));
  const s = words.join(" ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function paragraphs(r: Rand, lo: number, hi: number): string {
  const n = r.int(lo, hi);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      r.chance(0.3)
        ? Array.from({ length: r.int(2, 5) }, () => `- [ ] ${sentence(r, 3, 8)}`).join("\n")
        : sentence(r, 8, 40) + ".",
    );
  }
  return out.join("\n\n");
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

function date(r: Rand): string {
  return `20${r.int(24, 27)}-${pad(r.int(1, 12))}-${pad(r.int(1, 28))}`;
}

function dateTime(r: Rand): string {
  const offset = r.pick(["Z", "Z", "+01:00", "-05:00", "+09:00", ".000Z", ".5+02:00"]);
  return `${date(r)}T${pad(r.int(0, 23))}:${pad(r.int(0, 59))}:${pad(r.int(0, 59))}${offset}`;
}

function email(r: Rand): string {
  return `${r.pick(USERS).replace("-", ".")}${r.chance(0.3) ? r.int(1, 99) : ""}@${
    r.pick(DOMAINS)
  }`;
}

function uuid(r: Rand): string {
  const hex = "0123456789abcdef";
  return `${r.chars(hex, 8)}-${r.chars(hex, 4)}-4${r.chars(hex, 3)}-a${r.chars(hex, 3)}-${
    r.chars(hex, 12)
  }`;
}

const OWNER_PATTERN = "^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$";
const NAME_PATTERN = "^[A-Za-z0-9._-]+$";

const githubIssue: WorkloadTool = {
  name: "github.create_issue",
  draft: "2020-12",
  schema: {
    type: "object",
    description: "Create a new issue in a GitHub repository.",
    properties: {
      owner: {
        type: "string",
        pattern: OWNER_PATTERN,
        maxLength: 39,
        description: "Repository owner (user or organization).",
      },
      repo: { type: "string", pattern: NAME_PATTERN, description: "Repository name." },
      title: { type: "string", minLength: 1, maxLength: 256, description: "Issue title." },
      body: { type: "string", maxLength: 65536, description: "Issue body (Markdown)." },
      labels: {
        type: "array",
        items: { type: "string", minLength: 1, maxLength: 50 },
        uniqueItems: true,
        maxItems: 20,
        description: "Labels to apply.",
      },
      assignees: {
        type: "array",
        items: { type: "string", pattern: OWNER_PATTERN },
        uniqueItems: true,
        maxItems: 10,
        description: "Usernames to assign.",
      },
      milestone: { type: "integer", minimum: 1, description: "Milestone number." },
      type: { type: "string", enum: ["bug", "feature", "task", "question"] },
      project: {
        type: "object",
        properties: {
          number: { type: "integer", minimum: 1 },
          column: { type: "string", enum: ["Todo", "In Progress", "Done"] },
        },
        required: ["number"],
        additionalProperties: false,
      },
      due_on: { type: "string", format: "date-time", description: "Due date (RFC 3339)." },
      parent_issue_url: { type: "string", format: "uri" },
    },
    required: ["owner", "repo", "title"],
    additionalProperties: false,
  },
  args(r) {
    const owner = r.pick(OWNERS), repo = r.pick(REPOS);
    const a: Args = { owner, repo, title: sentence(r, 3, 12) };
    if (r.chance(0.7)) a.body = paragraphs(r, 1, 5);
    if (r.chance(0.5)) a.labels = r.some(LABELS, r.int(1, 3));
    if (r.chance(0.3)) a.assignees = r.some(USERS, r.int(1, 3));
    if (r.chance(0.2)) a.milestone = r.int(1, 40);
    if (r.chance(0.4)) a.type = r.pick(["bug", "feature", "task", "question"]);
    if (r.chance(0.1)) {
      a.project = r.chance(0.5)
        ? { number: r.int(1, 12) }
        : { number: r.int(1, 12), column: r.pick(["Todo", "In Progress", "Done"]) };
    }
    if (r.chance(0.1)) a.due_on = dateTime(r);
    if (r.chance(0.05)) {
      a.parent_issue_url = `https://github.com/${owner}/${repo}/issues/${r.int(1, 9999)}`;
    }
    return a;
  },
};

const slackMessage: WorkloadTool = {
  name: "slack.post_message",
  draft: "2020-12",
  schema: {
    type: "object",
    description: "Post a message to a Slack channel or thread.",
    properties: {
      channel_id: {
        type: "string",
        pattern: "^[CGD][A-Z0-9]{8,}$",
        description: "The channel's ID, e.g. C01234567.",
      },
      text: { type: "string", maxLength: 40000, description: "Message text (mrkdwn)." },
      blocks: {
        type: "array",
        maxItems: 50,
        items: {
          type: "object",
          properties: {
            type: { type: "string", enum: ["section", "divider", "header", "context"] },
            text: {
              type: "object",
              properties: {
                type: { type: "string", enum: ["mrkdwn", "plain_text"] },
                text: { type: "string", maxLength: 3000 },
              },
              required: ["type", "text"],
              additionalProperties: false,
            },
            block_id: { type: "string", pattern: NAME_PATTERN, maxLength: 255 },
          },
          required: ["type"],
        },
      },
      thread_ts: {
        type: "string",
        pattern: "^[0-9]{10}\\.[0-9]{6}$",
        description: "Reply in this thread.",
      },
      reply_broadcast: { type: "boolean" },
      unfurl_links: { type: "boolean" },
      unfurl_media: { type: "boolean" },
      mrkdwn: { type: "boolean" },
      icon_emoji: { type: "string", pattern: "^:[a-z0-9_+-]+:$" },
      username: { type: "string", maxLength: 80 },
      metadata: {
        type: "object",
        properties: {
          event_type: { type: "string", pattern: "^[a-z0-9_]+$" },
          event_payload: { type: "object" },
        },
        required: ["event_type", "event_payload"],
      },
      schedule_at: { type: "string", format: "date-time" },
    },
    required: ["channel_id"],
    anyOf: [{ required: ["text"] }, { required: ["blocks"] }],
  },
  args(r) {
    const a: Args = {
      channel_id: r.pick(["C", "C", "G", "D"]) +
        r.chars("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", r.int(8, 11)),
    };
    const blocks = r.chance(0.25);
    if (!blocks || r.chance(0.4)) {
      a.text = r.chance(0.1) ? paragraphs(r, 2, 6) : sentence(r, 2, 30);
    }
    if (blocks) {
      a.blocks = Array.from({ length: r.int(1, 5) }, () => {
        const type = r.pick(["section", "section", "divider", "header", "context"]);
        const b: Args = { type };
        if (type !== "divider") {
          b.text = {
            type: type === "header" ? "plain_text" : r.pick(["mrkdwn", "plain_text"]),
            text: sentence(r, 2, 25),
          };
        }
        if (r.chance(0.2)) b.block_id = `blk_${r.chars("abcdef0123456789", 6)}`;
        return b;
      });
    }
    if (r.chance(0.3)) {
      a.thread_ts = `${r.int(1700000000, 1799999999)}.${r.chars("0123456789", 6)}`;
      if (r.chance(0.3)) a.reply_broadcast = r.chance(0.5);
    }
    if (r.chance(0.15)) a.unfurl_links = r.chance(0.5);
    if (r.chance(0.1)) a.unfurl_media = r.chance(0.5);
    if (r.chance(0.1)) a.mrkdwn = r.chance(0.8);
    if (r.chance(0.05)) {
      a.icon_emoji = r.pick([":robot_face:", ":rocket:", ":+1:", ":white_check_mark:"]);
    }
    if (r.chance(0.05)) a.username = r.pick(["Deploy Bot", "estate-agent", "On-call helper"]);
    if (r.chance(0.05)) {
      a.metadata = {
        event_type: "deploy_finished",
        event_payload: { service: r.pick(REPOS), version: `1.${r.int(0, 40)}.${r.int(0, 9)}` },
      };
    }
    if (r.chance(0.05)) a.schedule_at = dateTime(r);
    return a;
  },
};

const PATH_SEGMENT = "[A-Za-z0-9._ -]+";
const filesystemWrite: WorkloadTool = {
  name: "filesystem.write_file",
  draft: "2020-12",
  schema: {
    type: "object",
    description: "Create or overwrite a file, or apply line edits to it, inside the allowed roots.",
    properties: {
      path: {
        type: "string",
        pattern: `^/(?:${PATH_SEGMENT}/)*${PATH_SEGMENT}$`,
        description: "Absolute path of the file.",
      },
      content: { type: "string", description: "The whole new content." },
      edits: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          properties: {
            oldText: { type: "string", minLength: 1, description: "Text to search for." },
            newText: { type: "string", description: "Text to replace it with." },
          },
          required: ["oldText", "newText"],
          additionalProperties: false,
        },
      },
      dryRun: { type: "boolean", default: false, description: "Preview the diff only." },
      encoding: { type: "string", enum: ["utf8", "base64"], default: "utf8" },
      mode: { type: "string", pattern: "^[0-7]{3,4}$" },
      createParents: { type: "boolean", default: false },
      overwrite: { type: "boolean", default: true },
      expectedSha256: { type: "string", pattern: "^[a-f0-9]{64}$" },
      modifiedSince: { type: "string", format: "date-time" },
    },
    required: ["path"],
    oneOf: [{ required: ["content"] }, { required: ["edits"] }],
    additionalProperties: false,
  },
  args(r) {
    const dirs = Array.from(
      { length: r.int(0, 5) },
      () =>
        r.pick([
          "home",
          "alice",
          "src",
          "lib",
          "docs",
          "project x",
          "tmp",
          "var",
          "data",
          "2026-q3",
        ]),
    );
    const file = r.pick([
      "README.md",
      "index.ts",
      "notes.txt",
      "config.json",
      ".env.example",
      "report v2.csv",
    ]);
    const a: Args = { path: `/${[...dirs, file].join("/")}` };
    if (r.chance(0.75)) {
      const lines = Array.from(
        { length: r.int(1, 60) },
        () => r.chance(0.2) ? "" : `${"  ".repeat(r.int(0, 3))}${sentence(r, 2, 12)}`,
      );
      a.content = lines.join("\n");
      if (r.chance(0.2)) a.encoding = "utf8";
    } else {
      a.edits = Array.from({ length: r.int(1, 4) }, () => ({
        oldText: sentence(r, 1, 8),
        newText: r.chance(0.1) ? "" : sentence(r, 1, 8),
      }));
      if (r.chance(0.3)) a.dryRun = r.chance(0.7);
    }
    if (r.chance(0.1)) a.mode = r.pick(["0644", "644", "0755", "600"]);
    if (r.chance(0.25)) a.createParents = r.chance(0.8);
    if (r.chance(0.3)) a.overwrite = r.chance(0.7);
    if (r.chance(0.1)) a.expectedSha256 = r.chars("0123456789abcdef", 64);
    if (r.chance(0.05)) a.modifiedSince = dateTime(r);
    return a;
  },
};

const calendarEvent: WorkloadTool = {
  name: "calendar.create_event",
  draft: "2020-12",
  schema: {
    type: "object",
    description: "Create an event in a calendar and invite attendees.",
    $defs: {
      when: {
        type: "object",
        properties: {
          dateTime: { type: "string", format: "date-time" },
          date: { type: "string", format: "date", description: "For all-day events." },
          timeZone: {
            type: "string",
            pattern: "^(?:UTC|[A-Za-z_]+(?:/[A-Za-z0-9_+-]+){1,2})$",
          },
        },
        anyOf: [{ required: ["dateTime"] }, { required: ["date"] }],
        additionalProperties: false,
      },
    },
    properties: {
      calendarId: {
        type: "string",
        pattern: "^(?:primary|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+)$",
        description: "Calendar identifier; `primary` for the user's calendar.",
      },
      summary: { type: "string", minLength: 1, maxLength: 1024 },
      description: { type: "string", maxLength: 8192 },
      location: { type: "string" },
      start: { $ref: "#/$defs/when" },
      end: { $ref: "#/$defs/when" },
      attendees: {
        type: "array",
        maxItems: 100,
        items: {
          type: "object",
          properties: {
            email: { type: "string", format: "email" },
            displayName: { type: "string" },
            optional: { type: "boolean", default: false },
            responseStatus: {
              type: "string",
              enum: ["needsAction", "declined", "tentative", "accepted"],
            },
          },
          required: ["email"],
          additionalProperties: false,
        },
      },
      recurrence: {
        type: "array",
        items: { type: "string", pattern: "^(?:RRULE|EXRULE|RDATE|EXDATE):" },
      },
      reminders: {
        type: "object",
        properties: {
          useDefault: { type: "boolean" },
          overrides: {
            type: "array",
            maxItems: 5,
            items: {
              type: "object",
              properties: {
                method: { type: "string", enum: ["email", "popup"] },
                minutes: { type: "integer", minimum: 0, maximum: 40320 },
              },
              required: ["method", "minutes"],
              additionalProperties: false,
            },
          },
        },
        required: ["useDefault"],
        additionalProperties: false,
      },
      visibility: { type: "string", enum: ["default", "public", "private", "confidential"] },
      transparency: { type: "string", enum: ["opaque", "transparent"] },
      conferenceData: {
        type: "object",
        properties: {
          createRequest: {
            type: "object",
            properties: {
              requestId: { type: "string", format: "uuid" },
              conferenceSolutionKey: {
                type: "object",
                properties: { type: { type: "string", enum: ["hangoutsMeet", "addOn"] } },
                required: ["type"],
              },
            },
            required: ["requestId"],
          },
        },
      },
      colorId: { type: "string", pattern: "^(?:[1-9]|1[01])$" },
      sendUpdates: { type: "string", enum: ["all", "externalOnly", "none"] },
    },
    required: ["calendarId", "summary", "start", "end"],
    additionalProperties: false,
  },
  args(r) {
    const a: Args = {
      calendarId: r.chance(0.7) ? "primary" : email(r),
      summary: sentence(r, 1, 8),
    };
    if (r.chance(0.4)) a.description = paragraphs(r, 1, 3);
    if (r.chance(0.4)) {
      a.location = r.pick([
        "Room 4.12",
        "Zoom",
        "https://meet.example.com/abc-defg-hij",
        "Café Central, Zürich",
      ]);
    }
    if (r.chance(0.15)) {
      const d = date(r);
      a.start = { date: d };
      a.end = { date: d };
    } else {
      const tz = r.chance(0.6) ? r.pick(TIMEZONES) : undefined;
      a.start = tz ? { dateTime: dateTime(r), timeZone: tz } : { dateTime: dateTime(r) };
      a.end = tz ? { dateTime: dateTime(r), timeZone: tz } : { dateTime: dateTime(r) };
    }
    if (r.chance(0.6)) {
      a.attendees = Array.from({ length: r.int(1, 12) }, () => {
        const at: Args = { email: email(r) };
        if (r.chance(0.5)) at.displayName = sentence(r, 1, 2);
        if (r.chance(0.2)) at.optional = r.chance(0.5);
        if (r.chance(0.1)) at.responseStatus = r.pick(["needsAction", "accepted", "tentative"]);
        return at;
      });
    }
    if (r.chance(0.1)) {
      a.recurrence = [
        r.pick([
          "RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10",
          "RRULE:FREQ=DAILY;UNTIL=20261231T000000Z",
        ]),
      ];
      if (r.chance(0.2)) {
        a.recurrence = [...a.recurrence as string[], `EXDATE:${date(r).replaceAll("-", "")}`];
      }
    }
    if (r.chance(0.2)) {
      a.reminders = r.chance(0.4) ? { useDefault: true } : {
        useDefault: false,
        overrides: Array.from({ length: r.int(1, 3) }, () => ({
          method: r.pick(["email", "popup"]),
          minutes: r.pick([5, 10, 15, 30, 60, 1440]),
        })),
      };
    }
    if (r.chance(0.15)) a.visibility = r.pick(["default", "public", "private"]);
    if (r.chance(0.1)) a.transparency = r.pick(["opaque", "transparent"]);
    if (r.chance(0.25)) {
      a.conferenceData = {
        createRequest: { requestId: uuid(r), conferenceSolutionKey: { type: "hangoutsMeet" } },
      };
    }
    if (r.chance(0.1)) a.colorId = String(r.int(1, 11));
    if (r.chance(0.3)) a.sendUpdates = r.pick(["all", "externalOnly", "none"]);
    return a;
  },
};

// The wide search tool: 6 core properties and 300 facets (12 entities × 25 attributes).
const ENTITIES = [
  "issue",
  "pr",
  "repo",
  "code",
  "commit",
  "message",
  "channel",
  "file",
  "event",
  "user",
  "doc",
  "ticket",
];
const LANGUAGES = [
  "typescript",
  "javascript",
  "python",
  "go",
  "rust",
  "java",
  "kotlin",
  "c",
  "cpp",
  "ruby",
  "php",
  "swift",
  "shell",
];
type Facet = { schema: Record<string, unknown>; value: (r: Rand) => unknown };
const ATTRIBUTES: Record<string, Facet> = {
  author: { schema: { type: "string", pattern: NAME_PATTERN }, value: (r) => r.pick(USERS) },
  assignee: { schema: { type: "string", pattern: NAME_PATTERN }, value: (r) => r.pick(USERS) },
  label: {
    schema: {
      type: "array",
      items: { type: "string", minLength: 1, maxLength: 50 },
      uniqueItems: true,
      maxItems: 10,
    },
    value: (r) => r.some(LABELS, r.int(1, 3)),
  },
  state: {
    schema: { type: "string", enum: ["open", "closed", "merged", "draft", "archived"] },
    value: (r) => r.pick(["open", "open", "closed", "merged", "draft"]),
  },
  created_after: { schema: { type: "string", format: "date" }, value: date },
  created_before: { schema: { type: "string", format: "date" }, value: date },
  updated_after: { schema: { type: "string", format: "date-time" }, value: dateTime },
  updated_before: { schema: { type: "string", format: "date-time" }, value: dateTime },
  language: { schema: { type: "string", enum: LANGUAGES }, value: (r) => r.pick(LANGUAGES) },
  size_min: { schema: { type: "integer", minimum: 0 }, value: (r) => r.int(0, 1000) },
  size_max: { schema: { type: "integer", minimum: 0 }, value: (r) => r.int(1000, 1_000_000) },
  reactions_min: {
    schema: { type: "integer", minimum: 0, maximum: 1000000 },
    value: (r) => r.int(0, 50),
  },
  id: {
    schema: { type: "string", pattern: "^[A-Z][A-Z0-9]{1,9}-[0-9]+$" },
    value: (r) => `${r.pick(["PAY", "OPS", "SEC", "WEB"])}-${r.int(1, 99999)}`,
  },
  path: {
    schema: { type: "string", pattern: "^[A-Za-z0-9._/-]+$" },
    value: (r) =>
      `${r.pick(["src", "lib", "docs", "tests"])}/${r.pick(["mod", "index", "util"])}.${
        r.pick(["ts", "md", "py"])
      }`,
  },
  in: {
    schema: {
      type: "array",
      items: { enum: ["title", "body", "comments", "filename"] },
      uniqueItems: true,
    },
    value: (r) => r.some(["title", "body", "comments", "filename"], r.int(1, 2)),
  },
  is_public: { schema: { type: "boolean" }, value: (r) => r.chance(0.5) },
  has_attachments: { schema: { type: "boolean" }, value: (r) => r.chance(0.5) },
  owner_email: { schema: { type: "string", format: "email" }, value: email },
  url: {
    schema: { type: "string", format: "uri" },
    value: (r) => `https://${r.pick(DOMAINS)}/${r.pick(["a", "docs", "x/y"])}?q=${r.int(1, 99)}`,
  },
  score_min: {
    schema: { type: "number", minimum: 0, maximum: 1 },
    value: (r) => Math.round(r.float() * 100) / 100,
  },
  tag: { schema: { type: "string", maxLength: 64 }, value: (r) => r.pick(WORDS) },
  team: {
    schema: { type: "string", pattern: "^@?[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)?$" },
    value: (r) => `@${r.pick(OWNERS)}/${r.pick(["platform", "payments", "sre", "web"])}`,
  },
  sha: {
    schema: { type: "string", pattern: "^[a-f0-9]{7,40}$" },
    value: (r) => r.chars("0123456789abcdef", r.pick([7, 12, 40])),
  },
  ref_uuid: { schema: { type: "string", format: "uuid" }, value: uuid },
  mentions: {
    schema: { type: "array", items: { type: "string", pattern: OWNER_PATTERN }, maxItems: 20 },
    value: (r) => r.some(USERS, r.int(1, 3)),
  },
};
const FACETS: { name: string; facet: Facet }[] = [];
for (const e of ENTITIES) {
  for (const [attr, facet] of Object.entries(ATTRIBUTES)) {
    FACETS.push({ name: `${e}_${attr}`, facet });
  }
}
// Popularity: a facet's rank in a fixed shuffle, Zipf weights (a few facets in most calls).
const FACET_ORDER = new Rand(2026).some(FACETS.map((_, i) => i), FACETS.length);
const FACET_CUMULATIVE = cumulative(FACET_ORDER.map((_, rank) => 1 / Math.pow(rank + 1, 1.1)));
/** How many facets a call sends: 0 to 8, most send 1 to 3. */
const FACET_COUNT_CUMULATIVE = cumulative([15, 25, 22, 15, 10, 6, 4, 2, 1]);

const searchProperties: Record<string, unknown> = {
  q: { type: "string", minLength: 1, maxLength: 2048, description: "Free-text query." },
  scope: { type: "string", enum: ["code", "issues", "messages", "files", "events", "all"] },
  sort: { type: "string", enum: ["relevance", "created", "updated", "reactions"] },
  order: { type: "string", enum: ["asc", "desc"] },
  page: { type: "integer", minimum: 1 },
  per_page: { type: "integer", minimum: 1, maximum: 100 },
};
for (const { name, facet } of FACETS) searchProperties[name] = facet.schema;

const search: WorkloadTool = {
  name: "search.query",
  draft: "2020-12",
  schema: {
    type: "object",
    description: "Search code, issues, messages, files and events, with any of 300 facet filters.",
    properties: searchProperties as Record<string, JsonSchema>,
    required: ["q"],
    additionalProperties: false,
  },
  args(r) {
    const a: Args = { q: sentence(r, 1, 6).toLowerCase() };
    if (r.chance(0.6)) a.scope = r.pick(["code", "issues", "messages", "files", "events", "all"]);
    if (r.chance(0.3)) {
      a.sort = r.pick(["relevance", "created", "updated", "reactions"]);
      if (r.chance(0.6)) a.order = r.pick(["asc", "desc"]);
    }
    if (r.chance(0.15)) a.page = r.int(1, 20);
    if (r.chance(0.25)) a.per_page = r.pick([10, 25, 50, 100]);
    const k = r.weighted(FACET_COUNT_CUMULATIVE);
    const chosen = new Set<number>();
    while (chosen.size < k) chosen.add(FACET_ORDER[r.weighted(FACET_CUMULATIVE)]);
    for (const i of chosen) a[FACETS[i].name] = FACETS[i].facet.value(r);
    return a;
  },
};

/** The five MCP-style tools; `search.query` is the wide one (306 properties). */
export const MCP_STYLE_TOOLS: readonly WorkloadTool[] = [
  githubIssue,
  slackMessage,
  filesystemWrite,
  calendarEvent,
  search,
];

type Obj = Record<string, unknown>;

/** Arguments for a simple object schema: every required property, each optional one half the time. */
export function genericArgs(schema: JsonSchema, r: Rand): Args {
  return genericValue(schema as Obj, r) as Args;
}

function genericValue(s: Obj, r: Rand): unknown {
  if (Array.isArray(s.enum)) return r.pick(s.enum);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "object": {
      const props = (s.properties ?? {}) as Record<string, Obj>;
      const required = new Set((s.required ?? []) as string[]);
      const out: Obj = {};
      for (const [k, p] of Object.entries(props)) {
        if (required.has(k) || r.chance(0.5)) out[k] = genericValue(p, r);
      }
      return out;
    }
    case "array":
      return Array.from({ length: r.int(0, 3) }, () => genericValue((s.items ?? {}) as Obj, r));
    case "number":
    case "integer": {
      const lo = typeof s.minimum === "number" ? s.minimum : 0;
      const hi = typeof s.maximum === "number" ? s.maximum : 1000;
      return type === "number" && r.chance(0.2)
        ? Math.round((lo + r.float() * (hi - lo)) * 100) / 100
        : r.int(Math.ceil(lo), Math.floor(hi));
    }
    case "boolean":
      return r.chance(0.5);
    case "string":
      if (s.format === "uri") {
        return `https://${r.pick(DOMAINS)}/files/${r.pick(["a.txt", "README.md", "data.json"])}`;
      }
      if (s.format === "date-time") return dateTime(r);
      if (s.format === "email") return email(r);
      return sentence(r, 1, 10);
    default:
      return sentence(r, 1, 3);
  }
}
