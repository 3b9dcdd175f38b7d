/**
 * The estate's pages: the tools a principal may see (search and filters), one tool (its versions on
 * a timeline, its stored calls per version over time, who calls which version), the semantic diff
 * between two of its versions (each change with its bump, rule and evidence, exactly the findings
 * `estate diff` gives), and what retiring a version would break (exactly `estate retire`'s plan).
 * A tool the principal may see no version of is answered exactly as one that does not exist.
 *
 * @module
 */
import {
  type CallerImpact,
  canSee,
  compareVersions,
  type LifecycleState,
  type Principal,
  SIDE_EFFECTS,
  type ToolRegistry,
  type ToolSpec,
  type VersionRecord,
} from "../../../mod.ts";
import type { CallStats } from "../../../mod.ts";
import type { EstateStore } from "../../store/mod.ts";
import { failOnSeverity, toolFindings } from "../_diff.ts";
import { diffSpecs, versionVerdict } from "../_tool_diff.ts";
import { type Html, html } from "./_html.ts";
import type { Page } from "./_layout.ts";
import { callChart } from "./_chart.ts";

/** The versions of a tool a principal may see, oldest first (none: the tool is not theirs to see). */
export function visibleVersions(
  registry: ToolRegistry,
  name: string,
  principal: Principal,
): VersionRecord[] {
  return registry.versions(name)
    .filter((r) => canSee(r.spec, principal))
    .sort((a, b) => compareVersions(a.spec.version, b.spec.version));
}

/** The version that stands for a tool in lists: the newest active one, else the newest. */
function headline(records: VersionRecord[]): VersionRecord {
  for (let i = records.length - 1; i >= 0; i--) {
    if (records[i].state === "active") return records[i];
  }
  return records[records.length - 1];
}

const tool = (base: string, name: string) => `${base}/tools/${encodeURIComponent(name)}`;

function stateBadge(state: LifecycleState): Html {
  return html`<span class="badge state-${state}">${state}</span>`;
}

const LIFECYCLES: readonly LifecycleState[] = ["active", "deprecated", "retired"];

/** The Server filter's value for tools served in-process: no server id has a colon. */
const IN_PROCESS = ":in-process";

/** Who called a version: principal, calls, last seen (the impact report's rows). */
function callersTable(callers: readonly CallerImpact[]): Html {
  return html`
    <table>
      <thead>
        <tr>
          <th scope="col">Principal</th>
          <th scope="col">Calls</th>
          <th scope="col">Last seen</th>
        </tr>
      </thead>
      <tbody>${callers.map((c) =>
        html`
          <tr>
            <td>${c.principal}</td>
            <td>${c.calls}</td>
            <td><time datetime="${c.lastSeen}">${c.lastSeen}</time></td>
          </tr>
        `
      )}</tbody>
    </table>
  `;
}

/** The page for a tool that does not exist — and, byte for byte, for one the principal may not see. */
export function notFoundPage(base: string): Page {
  return {
    status: 404,
    title: "Not found",
    section: "estate",
    main: html`<h1>Not found</h1>
<p>There is no such page in this estate. <a href="${base}/">Back to the estate</a>.</p>`,
  };
}

/**
 * The estate: every tool the principal may see, filtered by the query.
 *
 * @param base The console's path.
 * @param registry The estate.
 * @param principal Who asks.
 * @param query `q` (name, title, owner, description), `sideEffect`, `lifecycle`, `owner`, `server`.
 * @returns The page.
 */
export function estatePage(
  base: string,
  registry: ToolRegistry,
  principal: Principal,
  query: URLSearchParams,
): Page {
  const rows: { spec: ToolSpec; state: LifecycleState; versions: number }[] = [];
  for (const name of registry.names()) {
    const records = visibleVersions(registry, name, principal);
    if (records.length === 0) continue;
    const h = headline(records);
    rows.push({ spec: h.spec, state: h.state, versions: records.length });
  }
  const q = (query.get("q") ?? "").trim().toLowerCase();
  const sideEffect = query.get("sideEffect") ?? "";
  const lifecycle = query.get("lifecycle") ?? "";
  const owner = query.get("owner") ?? "";
  const server = query.get("server") ?? "";
  const owners = [...new Set(rows.map((r) => r.spec.owner))].sort();
  const servers = [...new Set(rows.map((r) => r.spec.server ?? IN_PROCESS))].sort();
  const shown = rows.filter(({ spec, state }) =>
    (q === "" ||
      [spec.name, spec.title, spec.owner, spec.description].some((t) =>
        t.toLowerCase().includes(q)
      )) &&
    (sideEffect === "" || spec.sideEffect === sideEffect) &&
    (lifecycle === "" || state === lifecycle) &&
    (owner === "" || spec.owner === owner) &&
    (server === "" || (spec.server ?? IN_PROCESS) === server)
  );
  const select = (
    name: string,
    label: string,
    options: readonly string[],
    value: string,
    shownAs: (o: string) => string = (o) => o,
  ) =>
    html`<label>${label}<select name="${name}"><option value="">any</option>${
      options.map((o) =>
        html`
          <option value="${o}" ${o === value
            ? html`
              selected
            `
            : ""}>${shownAs(o)}</option>
        `
      )
    }</select></label>`;
  return {
    title: "Estate",
    section: "estate",
    main: html`
      <h1>Estate</h1>
      <form class="filters" method="get" action="${base}/" role="search">
        <label>Search<input type="search" name="q" value="${query.get("q") ??
          ""}" placeholder="name, title, owner"></label>
        ${select("sideEffect", "Side effect", SIDE_EFFECTS, sideEffect)}
        ${select("lifecycle", "Lifecycle", LIFECYCLES, lifecycle)}
        ${select("owner", "Owner", owners, owner)}
        ${select("server", "Server", servers, server, (s) => s === IN_PROCESS ? "in-process" : s)}
        <button type="submit">Filter</button>
      </form>
      <p class="muted" data-count="${shown.length}">${shown.length} of ${rows
        .length} tool${rows.length === 1 ? "" : "s"}</p>
      <table data-tools>
        <caption class="muted">Each tool with the newest version you may see</caption>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Version</th>
            <th scope="col">Lifecycle</th>
            <th scope="col">Side effect</th>
            <th scope="col">Owner</th>
            <th scope="col">Server</th>
          </tr>
        </thead>
        <tbody>${shown.map(({ spec, state, versions }) =>
          html`
            <tr data-tool="${spec.name}">
              <td><a href="${tool(base, spec.name)}">${spec.name}</a><br><span class="muted">${spec
                .title}</span></td>
              <td>${spec.version}${versions > 1
                ? html`
                  <span class="muted">(${versions} versions)</span>
                `
                : ""}</td>
              <td>${stateBadge(state)}</td>
              <td>${spec.sideEffect}</td>
              <td>${spec.owner}</td>
              <td>${spec.server ?? html`<span class="muted">in-process</span>`}</td>
            </tr>
          `
        )}</tbody>
      </table>
    `,
  };
}

function timeline(records: VersionRecord[]): Html {
  return html`<ol class="timeline" data-timeline>${
    [...records].reverse().map((r) =>
      html`<li data-version="${r.spec.version}"><strong>${r.spec.version}</strong> ${
        stateBadge(r.state)
      }<ul>${
        r.history.map((e, i) =>
          html`<li>${i === 0 ? "published" : e.state} <time datetime="${e.at}">${
            e.at.slice(0, 16).replace("T", " ")
          }</time>${e.retireAfter ? html`, retires after <strong>${e.retireAfter}</strong>` : ""}${
            e.reason
              ? html`
                — ${e.reason}
              `
              : ""
          }</li>`
        )
      }</ul></li>`
    )
  }</ol>`;
}

/**
 * One tool, as far as the principal may see it.
 *
 * @param base The console's path.
 * @param records The versions the principal may see (at least one).
 * @param stats The tool's stored calls, aggregated.
 * @param now The time, for the chart's last day.
 * @returns The page.
 */
export function toolPage(
  base: string,
  records: VersionRecord[],
  stats: CallStats,
  now: number,
): Page {
  const h = headline(records).spec;
  const url = tool(base, h.name);
  const mine = new Set(records.map((r) => r.spec.version));
  const days = stats.days().filter((d) => mine.has(d.version));
  const versions = records.map((r) => r.spec.version);
  const newest = versions[versions.length - 1];
  const previous = versions.length > 1 ? versions[versions.length - 2] : newest;
  const pick = (name: string, label: string, chosen: string) =>
    html`<label>${label}<select name="${name}">${
      versions.map((v) =>
        html`
          <option value="${v}" ${v === chosen
            ? html`
              selected
            `
            : ""}>${v}</option>
        `
      )
    }</select></label>`;
  return {
    title: h.name,
    section: "estate",
    main: html`
      <h1>${h.name} <span class="muted">${h.title}</span></h1>
      <p>${h.description}</p>
      <table class="facts">
        <tbody>
          <tr>
            <th scope="row">Owner</th>
            <td>${h.owner}</td>
          </tr>
          <tr>
            <th scope="row">Side effect</th>
            <td>${h.sideEffect}</td>
          </tr>
          <tr>
            <th scope="row">Data classification</th>
            <td>${h.dataClassification}</td>
          </tr>
          <tr>
            <th scope="row">Server</th>
            <td>${h.server ?? "in-process"}</td>
          </tr>
          <tr>
            <th scope="row">Required scopes</th>
            <td>${h.requiredScopes.join(", ") || "none"}</td>
          </tr>
        </tbody>
      </table>
      <h2>Versions</h2>
      ${timeline(records)}
      <h2>Compare two versions</h2>
      <form class="filters" method="get" action="${url}/diff">
        ${pick("from", "From", previous)} ${pick("to", "To", newest)}
        <button type="submit">Show the changes</button>
      </form>
      <h2>Stored calls per version</h2>
      ${callChart(days, versions, now)}
      <h2>Who calls what</h2>
      ${[...records].reverse().map((r) => {
        const v = r.spec.version;
        const tally = stats.callers(v);
        return html`
          <section
            data-impact="${v}"><h3>${v} ${stateBadge(r.state)} <span class="muted">${tally
              .calls} call${tally.calls === 1 ? "" : "s"}</span></h3>${tally.callers.length === 0
              ? html`<p class="muted">No stored calls.</p>`
              : callersTable(tally.callers)}${r.state === "retired"
              ? ""
              : html`<p><a href="${url}/retire/${
                encodeURIComponent(v)
              }">What retiring ${v} would break</a></p>`}</section>
        `;
      })}
    `,
  };
}

/**
 * The changes from one version to another, as `estate diff` finds them.
 *
 * @param base The console's path.
 * @param from The older spec.
 * @param to The newer spec.
 * @returns The page.
 */
export function diffPage(base: string, from: ToolSpec, to: ToolSpec): Page {
  const diff = diffSpecs(from, to);
  const verdict = versionVerdict(from, to, diff);
  const doc = {
    absolute: "",
    file: `${to.name}@${to.version}`,
    text: JSON.stringify(to, null, 2),
    spec: to,
  };
  const findings = toolFindings(from, doc, diff, failOnSeverity("major"))
    .filter((f) => f.rule !== verdict.code);
  const evidence = findings.filter((f) => f.rule === "breaking-call");
  const changes = findings.filter((f) => f.rule !== "breaking-call");
  return {
    title: `${to.name} ${from.version} → ${to.version}`,
    section: "estate",
    main: html`
      <h1><a href="${tool(base, to.name)}">${to.name}</a>: ${from.version} → ${to.version}</h1>
      <p
        data-bump="${diff.bump}">The change is <strong class="bump-${diff.bump}">${diff
          .bump}</strong>. <span class="${verdict.ok
          ? "verdict-ok"
          : "verdict-bad"}" data-verdict="${verdict.code}">${verdict.message}</span></p>
      ${changes.length === 0 ? html`<p class="muted">No changes.</p>` : html`
        <table data-changes>
          <thead>
            <tr>
              <th scope="col">Bump</th>
              <th scope="col">Rule</th>
              <th scope="col">Where</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>${changes.map((f) =>
            html`
              <tr data-rule="${f.rule}">
                <td>${f.bump ? html`<span class="badge bump-${f.bump}">${f.bump}</span>` : "—"}</td>
                <td><code>${f.rule}</code></td>
                <td><code>${f.field ?? ""}${f.path && f.path !== "$"
                  ? f.path.slice(1)
                  : ""}</code></td>
                <td>${f.message}</td>
              </tr>
            `
          )}</tbody>
        </table>
      `}
      ${evidence.map((f) =>
        html`
          <h2>Witness</h2>
          <div class="witness" data-witness>
            <p><code>${f.rule}</code> at <code>${f.field ?? ""}${f.path && f.path !== "$"
              ? f.path.slice(1)
              : ""}</code></p>
            <p>${f.message}</p>
          </div>
        `
      )}
    `,
  };
}

/**
 * What retiring a version would do: the retirement rules' plan, as `estate retire` decides it.
 *
 * @param base The console's path.
 * @param estate The store (the plan is answered against it).
 * @param spec The version.
 * @returns The page.
 */
export async function retirePage(
  base: string,
  estate: EstateStore,
  spec: ToolSpec,
): Promise<Page> {
  const plan = await estate.planRetirement(spec.name, spec.version);
  const impact = plan.impact;
  return {
    title: `Retiring ${spec.name}@${spec.version}`,
    section: "estate",
    main: html`
      <h1>Retiring <a href="${tool(base, spec.name)}">${spec.name}</a>@${spec.version}</h1>
      <p>${plan.refusals.length === 0
        ? html`<span class="verdict-ok">The retirement rules allow it now.</span>`
        : html`<span class="verdict-bad">The retirement rules refuse it now:</span>`}</p>
      <ul data-refusals>${plan.refusals.map((r) =>
        html`<li data-refusal="${r.refusal}">${r.message}</li>`
      )}</ul>
      <h2>Callers in the last ${plan.recentDays} days: ${impact.recent.calls}</h2>
      ${impact.recent.callers.length === 0
        ? html`<p class="muted">Nobody called it in that time.</p>`
        : callersTable(impact.recent.callers)}
      <p
        class="muted">All time: ${impact.calls} calls by ${impact.callers
          .length} principal${impact.callers.length === 1
          ? ""
          : "s"}. To retire it: <code>estate retire ${spec.name} ${spec
          .version}</code> (the same rules decide).</p>
    `,
  };
}
