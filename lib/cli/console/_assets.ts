/**
 * The console's only two static files, kept here as text (the package stays one tree of modules,
 * and nothing is fetched from another origin): the stylesheet, and the script that keeps a page
 * live. The script is progressive: every page works without it (forms post, links navigate);
 * with it, a change the server announces on `events` refreshes `<main>` in place.
 *
 * @module
 */

/** `console.css`. */
export const CONSOLE_CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #4a5562; --line: #d5dae0; --bg: #ffffff;
  --soft: #f4f6f8; --accent: #0b57d0; --bad: #a4262c; --warn: #7a4d00; --ok: #1e6b34; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f2a900; outline-offset: 2px; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); background: var(--soft); }
.brand { font-weight: 700; color: var(--fg); text-decoration: none; }
nav ul { display: flex; gap: .9rem; list-style: none; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 700; color: var(--fg); }
.who { margin-left: auto; display: flex; gap: .6rem; align-items: center; }
main { padding: 1rem 1.2rem 3rem; max-width: 72rem; }
h1 { font-size: 1.5rem; margin: .4rem 0 .8rem; }
h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .9em; }
pre { background: var(--soft); padding: .6rem; overflow-x: auto; border: 1px solid var(--line); }
.filters { display: flex; flex-wrap: wrap; gap: .8rem; align-items: end; margin: .4rem 0 1rem; }
.filters label { display: flex; flex-direction: column; font-size: .9rem; color: var(--muted); }
input, select, button, textarea { font: inherit; padding: .3rem .5rem; border: 1px solid #6b7785; border-radius: 4px; background: #fff; color: var(--fg); }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
a.button { display: inline-block; padding: .4rem .9rem; border-radius: 4px; background: var(--accent); color: #fff; text-decoration: none; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: .82rem; border: 1px solid currentColor; }
.state-active, .bump-patch { color: var(--ok); }
.state-deprecated, .bump-minor { color: var(--warn); }
.state-retired, .bump-major, .bad { color: var(--bad); }
.muted { color: var(--muted); }
.timeline { list-style: none; padding: 0; border-left: 3px solid var(--line); margin-left: .4rem; }
.timeline > li { padding: .2rem 0 .7rem 1rem; }
.timeline ul { margin: .2rem 0; padding-left: 1.1rem; }
.chart { width: 100%; max-width: 46rem; height: auto; border: 1px solid var(--line); background: #fff; }
.chart .axis { stroke: #6b7785; }
.s0 { fill: #0b57d0; } .s1 { fill: #b3261e; } .s2 { fill: #146c2e; } .s3 { fill: #7d5700; }
.s4 { fill: #6b3fa0; } .s5 { fill: #00677d; } .s6 { fill: #5f6368; } .s7 { fill: #9c4146; }
.legend { display: flex; flex-wrap: wrap; gap: .8rem; list-style: none; padding: 0; }
.legend svg { vertical-align: middle; }
.witness { border-left: 4px solid var(--bad); padding: .3rem .7rem; background: #fdf3f3; }
.verdict-ok { color: var(--ok); font-weight: 600; } .verdict-bad { color: var(--bad); font-weight: 600; }
.notice { padding: .5rem .8rem; border: 1px solid var(--line); background: var(--soft); }
.live { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
.signin { max-width: 28rem; }
.signin label { display: block; margin: .6rem 0 .2rem; }
.signin input { width: 100%; }
.decide { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
`;

/** `console.js`: live updates, and nothing a page needs to work. */
export const CONSOLE_JS = `"use strict";
(() => {
  const base = document.body.dataset.base;
  const live = document.getElementById("live");
  let busy = false;
  let again = false;
  const typing = () => {
    const a = document.activeElement;
    const main = document.getElementById("main");
    return a && main && main.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName) && a.type !== "submit";
  };
  async function refresh() {
    if (busy) { again = true; return; }
    if (typing()) { again = true; return; }
    busy = true;
    try {
      const r = await fetch(location.href, { headers: { "x-console-refresh": "1" }, credentials: "same-origin", cache: "no-store" });
      if (r.redirected || r.status === 401) { location.reload(); return; }
      if (!r.ok) return;
      const doc = new DOMParser().parseFromString(await r.text(), "text/html");
      const fresh = doc.getElementById("main");
      const main = document.getElementById("main");
      if (fresh && main && fresh.innerHTML !== main.innerHTML) {
        main.innerHTML = fresh.innerHTML;
        document.title = doc.title;
        if (live) live.textContent = "Updated " + new Date().toLocaleTimeString();
      }
    } catch (_) { /* the next event tries again */ }
    finally {
      busy = false;
      if (again) { again = false; setTimeout(refresh, 300); }
    }
  }
  document.addEventListener("focusout", () => { if (again) setTimeout(refresh, 50); });
  if (base && "EventSource" in window) {
    const events = new EventSource(base + "/events");
    events.addEventListener("change", refresh);
    events.addEventListener("signed-out", () => { events.close(); location.reload(); });
  }
  const poll = Number(document.body.dataset.poll || 0);
  if (poll > 0) setInterval(refresh, poll);
})();
`;
