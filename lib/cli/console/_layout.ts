/**
 * The console's page shell: the head (one stylesheet, one script, both served from the console
 * itself), the navigation with who is signed in, the `<main>` a live update replaces, and the
 * headers every page carries (a strict Content-Security-Policy: no inline script or style, nothing
 * from another origin; no framing; no caching of a principal's pages).
 *
 * @module
 */
import { type Html, html, type HtmlValue } from "./_html.ts";

/** The headers every console answer carries. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  // Not no-referrer: under it Chromium sends `Origin: null` with a form post, which the
  // endpoint's Origin guard refuses; same-origin keeps the Origin and tells other sites nothing.
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "no-store",
});

/** A page to send: its status, its title and its main content. */
export interface Page {
  /** The HTTP status. Default 200. */
  status?: number;
  /** The title, after the estate's name. */
  title: string;
  /** What goes in `<main>`. */
  main: Html;
  /** Which section of the navigation is current. */
  section?: "estate" | "servers" | "approvals" | "audit";
  /** Ask the script to refresh this page every few seconds too (state not announced by events). */
  poll?: boolean;
}

/** Who the page is for, for the navigation. */
export interface Viewer {
  /** The principal's id. */
  id: string;
  /** The token that must come back with every form the page posts. */
  csrf: string;
}

/**
 * The whole document.
 *
 * @param base The console's path, e.g. `/console`.
 * @param page The page.
 * @param viewer Who is signed in (none on the sign-in page).
 * @returns The markup.
 */
export function documentFor(base: string, page: Page, viewer?: Viewer): string {
  const nav: [Page["section"], string, string][] = [
    ["estate", `${base}/`, "Estate"],
    ["servers", `${base}/servers`, "Servers and drift"],
    ["approvals", `${base}/approvals`, "Approvals"],
    ["audit", `${base}/audit`, "Audit"],
  ];
  const links: HtmlValue = viewer
    ? html`
      <nav aria-label="Console">
        <ul>${nav.map(([s, href, label]) =>
          html`<li><a href="${href}"${
            s === page.section
              ? html`
                aria-current="page"
              `
              : ""
          }>${label}</a></li>`
        )}</ul>
      </nav>
      <form class="who" method="post" action="${base}/sign-out">
        <span>Signed in as <strong data-principal>${viewer.id}</strong></span>
        <input type="hidden" name="csrf" value="${viewer.csrf}">
        <button type="submit">Sign out</button>
      </form>
    `
    : "";
  return "<!doctype html>\n" + html`
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${page.title} · tool-estate console</title>
        <link rel="stylesheet" href="${base}/assets/console.css">
        <script src="${base}/assets/console.js" defer></script>
      </head>
      <body data-base="${base}" ${page.poll
        ? html`
          data-poll="5000"
        `
        : ""}>
        <header class="top"><a class="brand" href="${base}/">tool-estate</a>${links}</header>
        <main id="main" tabindex="-1">${page.main}</main>
        <div class="live" role="status" aria-live="polite" id="live"></div>
      </body>
    </html>
  `.text;
}
