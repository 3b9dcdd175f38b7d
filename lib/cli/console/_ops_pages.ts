/**
 * The operator's pages: the servers the estate did not write (identity, last observed,
 * quarantines, drift), the calls waiting on a person (an approver approves or rejects here, as
 * with `estate approvals`), and the audit trail with its verification. Each shows only what the
 * principal may see: a server that serves a tool they may see, drift about such tools, pending
 * calls `mayViewPendingCall` admits, audit records about such tools or by the principal.
 *
 * @module
 */
import {
  type AuditRecord,
  type AuditVerdict,
  type DriftRecord,
  type PendingCall,
  type Principal,
  quarantinesInForce,
  type ServerRecord,
  showHiddenCharacters,
  type ToolRegistry,
} from "../../../mod.ts";
import type { ServerStatus } from "../../gateway/status.ts";
import { type Html, html } from "./_html.ts";
import type { Page, Viewer } from "./_layout.ts";
import { visibleVersions } from "./_tool_pages.ts";

/** Whether the principal may see some version of a tool. */
export function seesTool(registry: ToolRegistry, name: string, principal: Principal): boolean {
  return visibleVersions(registry, name, principal).length > 0;
}

/**
 * {@linkcode seesTool} for one principal over one page, asked once per tool name (a page names the
 * same tools again and again: each server's list, each drift or audit record).
 */
export function toolsSeenBy(
  registry: ToolRegistry,
  principal: Principal,
): (name: string) => boolean {
  const seen = new Map<string, boolean>();
  return (name) => {
    let s = seen.get(name);
    if (s === undefined) seen.set(name, s = seesTool(registry, name, principal));
    return s;
  };
}

function identity(record: ServerRecord): string {
  const u = record.upstream;
  if (u.kind === "stdio") return `binary SHA-256 ${u.sha256.slice(0, 16)}…`;
  return "spiffeId" in u.identity
    ? `SPIFFE ID ${u.identity.spiffeId}`
    : `certificate SHA-256 ${u.identity.certificateSha256.slice(0, 16)}…`;
}

/** The gateway's view of a server now: connection, circuit, identity check, last failure. */
function liveState(status: ServerStatus | undefined): Html {
  if (!status) return html`<span class="muted">not served here</span>`;
  const verified = status.identity && status.connection === "connected"
    ? html`<br><span class="muted">identity verified: ${status.identity.observed}</span>`
    : status.identity
    ? html`<br><span class="bad">identity refused: expected ${status.identity.expected}, presented ${status.identity.observed}</span>`
    : "";
  return html`${status.connection}, circuit ${status.circuit}${verified}${
    status.error
      ? html`<br><span class="muted">last failure: ${showHiddenCharacters(status.error)}</span>`
      : ""
  }`;
}

const when = (at: string) =>
  html`<time datetime="${at}">${at.slice(0, 19).replace("T", " ")}</time>`;

/**
 * The servers and their drift, as far as the principal may see them.
 *
 * @param registry The estate.
 * @param drift Every drift record, oldest first.
 * @param principal Who asks.
 * @param live The gateway's servers as it finds them now (none when it is not a gateway).
 * @returns The page.
 */
export function serversPage(
  registry: ToolRegistry,
  drift: DriftRecord[],
  principal: Principal,
  live: readonly ServerStatus[] = [],
): Page {
  const now = new Map(live.map((s) => [s.id, s]));
  const sees = toolsSeenBy(registry, principal);
  const servers = registry.servers().filter((s) => s.tools.some(sees));
  const ids = new Set(servers.map((s) => s.id));
  const mine = drift.filter((d) => ids.has(d.server) && (d.tool === undefined || sees(d.tool)));
  const held = quarantinesInForce(mine, registry);
  const last = new Map<string, string>();
  for (const d of mine) last.set(d.server, d.at);
  const safe = showHiddenCharacters;
  return {
    title: "Servers and drift",
    section: "servers",
    main: html`<h1>Servers and drift</h1>
${
      servers.length === 0
        ? html`<p class="muted">No servers you may see: the estate's tools run in-process.</p>`
        : html`
          <table data-servers>
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col">Owner</th>
                <th scope="col">Identity</th>
                <th scope="col">Now</th>
                <th scope="col">Last observed</th>
                <th scope="col">Tools</th>
              </tr>
            </thead>
            <tbody>${servers.map((s) =>
              html`
                <tr data-server="${s.id}">
                  <td><strong>${s.id}</strong><br><span class="muted">${safe(
                    s.description,
                  )}</span></td>
                  <td>${safe(s.owner)}</td>
                  <td>${s.upstream.kind}: ${identity(s)}</td>
                  <td data-connection="${now.get(s.id)?.connection ?? "unknown"}">${liveState(
                    now.get(s.id),
                  )}</td>
                  <td>${last.has(s.id)
                    ? when(last.get(s.id)!)
                    : html`<span class="muted">no drift recorded</span>`}</td>
                  <td>
                    <ul>${s.tools.filter(sees).map((t) =>
                      html`<li>${t}${
                        held.some((q) => q.server === s.id && q.tool === t)
                          ? html`
                            <span class="badge bad" data-quarantined>quarantined</span>
                          `
                          : ""
                      }</li>`
                    )}</ul>
                  </td>
                </tr>
              `
            )}</tbody>
          </table>
        `
    }
<h2>Quarantines in force: ${held.length}</h2>
${
      held.length === 0
        ? html`<p class="muted">None.</p>`
        : html`<ul>${
          held.map((q) =>
            html`<li>${q.tool}@${q.registeredVersion ?? "?"} on ${q.server}: ${safe(q.details)} (${
              when(q.at)
            })</li>`
          )
        }</ul>`
    }
<h2>Drift records</h2>
${
      mine.length === 0 ? html`<p class="muted">None.</p>` : html`
        <table data-drift>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Server</th>
              <th scope="col">Tool</th>
              <th scope="col">Kind</th>
              <th scope="col">What</th>
            </tr>
          </thead>
          <tbody>${mine.slice(-200).reverse().map((d) =>
            html`
              <tr>
                <td>${when(d.at)}</td>
                <td>${d.server}</td>
                <td>${d.tool ?? "—"}</td>
                <td>${d.kind}${d.bump
                  ? html`
                    <span class="badge bump-${d.bump}">${d.bump}</span>
                  `
                  : ""}</td>
                <td>${safe(d.details)}</td>
              </tr>
            `
          )}</tbody>
        </table>
      `
    }`,
  };
}

/** What happened to the last decision, for the approvals page. */
export interface DecisionNote {
  /** Whether it was decided. */
  ok: boolean;
  /** What to say. */
  message: string;
}

function decisionForm(base: string, call: PendingCall, viewer: Viewer): Html {
  return html`
    <form class="decide" method="post" action="${base}/approvals/${call.id}">
      <input type="hidden" name="csrf" value="${viewer.csrf}">
      <label for="reason-${call.id}">Reason</label>
      <input id="reason-${call.id}" name="reason" placeholder="required to reject">
      <button type="submit" name="decision" value="approve">Approve</button>
      <button type="submit" class="secondary" name="decision" value="reject">Reject</button>
    </form>
  `;
}

/**
 * The pending calls the principal may see; those they may decide with a form.
 *
 * @param base The console's path.
 * @param calls The calls (`pendingCallsFor`).
 * @param viewer Who asks, with the form token.
 * @param principal Who asks.
 * @param note The outcome of the decision just made, if any.
 * @returns The page.
 */
export function approvalsPage(
  base: string,
  calls: PendingCall[],
  viewer: Viewer,
  principal: Principal,
  note?: DecisionNote,
): Page {
  const open = calls.filter((c) => c.state === "pending");
  const done = calls.filter((c) => c.state !== "pending").slice(-50).reverse();
  const mayDecide = (c: PendingCall) =>
    c.caller !== principal.id && principal.scopes.includes(c.approverScope);
  const row = (c: PendingCall, decide: boolean) =>
    html`
      <tr data-pending="${c.id}" data-state="${c.state}">
        <td><code>${c.tool}@${c.version}</code></td>
        <td>${c.caller}</td>
        <td><pre>${JSON.stringify(c.arguments, null, 2)}</pre><span class="muted mono">sha256 ${c
          .argumentsSha256.slice(0, 16)}…</span></td>
        <td>${c.rule}</td>
        <td>${when(c.createdAt)}<br><span class="muted">lapses ${when(c.expiresAt)}</span></td>
        <td>${c.state}${c.decidedBy
          ? html`<br><span class="muted">by ${c.decidedBy}${c.reason ? `: ${c.reason}` : ""}</span>`
          : ""}${decide ? decisionForm(base, c, viewer) : ""}</td>
      </tr>
    `;
  const head = html`
    <thead>
      <tr>
        <th scope="col">Tool</th>
        <th scope="col">Caller</th>
        <th scope="col">Arguments</th>
        <th scope="col">Rule</th>
        <th scope="col">Held</th>
        <th scope="col">State</th>
      </tr>
    </thead>
  `;
  return {
    title: "Approvals",
    section: "approvals",
    poll: true,
    main: html`<h1>Approvals</h1>
${
      note
        ? html`<p class="notice ${
          note.ok ? "verdict-ok" : "verdict-bad"
        }" role="alert" data-decision>${note.message}</p>`
        : ""
    }
<h2>Waiting: ${open.length}</h2>
${
      open.length === 0
        ? html`<p class="muted">No call waits on a decision you may see.</p>`
        : html`<table data-waiting>${head}<tbody>${
          open.map((c) => row(c, mayDecide(c)))
        }</tbody></table>`
    }
<h2>Decided</h2>
${
      done.length === 0
        ? html`<p class="muted">None yet.</p>`
        : html`<table>${head}<tbody>${done.map((c) => row(c, false))}</tbody></table>`
    }`,
  };
}

/**
 * The audit trail: the records the principal may see, newest first, and whether the chain holds.
 *
 * @param records The records shown (newest first).
 * @param verdict The whole chain's verification.
 * @param query The filter as given (`kind`, `tool`).
 * @param base The console's path.
 * @returns The page.
 */
export function auditPage(
  records: AuditRecord[],
  verdict: AuditVerdict,
  query: URLSearchParams,
  base: string,
): Page {
  return {
    title: "Audit",
    section: "audit",
    main: html`
      <h1>Audit trail</h1>
      <p data-audit-verdict="${verdict.ok ? "ok" : verdict.reason}" class="notice ${verdict.ok
        ? "verdict-ok"
        : "verdict-bad"}">${verdict.ok
        ? `The chain holds: ${verdict.records} records, head ${
          verdict.head.hash.slice(0, 16)
        }…, ${verdict.checkpoints} checkpoint${verdict.checkpoints === 1 ? "" : "s"} held to it${
          verdict.signed
            ? " (signatures verified)"
            : " (signatures are checked by estate audit verify --public-key)"
        }.`
        : `The chain is broken at record ${verdict.seq} (${verdict.reason}): ${verdict.message}`}</p>
      <form class="filters" method="get" action="${base}/audit">
        <label>Tool<input name="tool" value="${query.get("tool") ?? ""}"></label>
        <label>Kind<input name="kind" value="${query.get("kind") ?? ""}"></label>
        <button type="submit">Filter</button>
      </form>
      ${records.length === 0 ? html`<p class="muted">No records you may see.</p>` : html`
        <table data-audit>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">Who</th>
              <th scope="col">Tool</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>${records.map((r) =>
            html`
              <tr>
                <td>${r.seq}</td>
                <td>${when(r.at)}</td>
                <td>${r.kind}</td>
                <td>${r.principal ?? "—"}</td>
                <td>${r.tool ? `${r.tool}${r.version ? `@${r.version}` : ""}` : "—"}</td>
                <td><code>${JSON.stringify(r.detail)}</code></td>
              </tr>
            `
          )}</tbody>
        </table>
      `}
    `,
  };
}
