// Every VS Code workbench DOM selector and keyboard gesture the e2e test relies on, in one place.
// These are workbench internals (class names of VS Code 1.139 as served by code-server 4.139.1),
// not an API: when a code-server bump breaks the test, this is the only file to fix.

/** CSS selectors of the workbench parts the test touches. */
export const SELECTORS = Object.freeze({
  workbench: ".monaco-workbench",
  explorerRow: ".explorer-folders-view .monaco-list-row",
  explorerLabel: ".label-name",
  activeTab: ".tabs-container .tab.active",
  editor: ".editor-instance .monaco-editor",
  editorLines: ".view-lines",
  editorLine: ".view-lines .view-line",
  squiggleError: ".squiggly-error",
  problemsPanel: ".markers-panel",
  problemsRow: ".markers-panel .monaco-list-row",
  // Inside a Problems row: a file (resource) row has the label, a marker row the rest.
  problemsResource: ".resource-label-container",
  problemsIcon: ".marker-icon",
  problemsMessage: ".marker-message-line",
  problemsSource: ".marker-source",
  problemsCode: ".marker-code",
  problemsLine: ".marker-line",
  problemsDetails: ".marker-source, .marker-code, .marker-line",
  panelMaximize: ".part.panel .action-label.codicon-panel-maximize",
  hover: ".monaco-hover:not(.hidden)",
  quickInput: ".quick-input-widget",
  actionWidgetRow: ".action-widget .monaco-list-row",
  dirtyTab: ".tabs-container .tab.active.dirty",
});

/**
 * Waits for the workbench shell and its Explorer to render.
 * @param {import('playwright-core').Page} page
 * @param {number} timeout ms
 */
export async function waitForWorkbench(page, timeout) {
  await page.locator(SELECTORS.workbench).waitFor({ state: "visible", timeout });
  await page.locator(SELECTORS.explorerRow).first().waitFor({ state: "visible", timeout });
}

/**
 * Opens a file at the top level of the workspace by double-clicking its Explorer row
 * (Ctrl+P + Enter was flaky), then waits for its tab to be the active one.
 * @param {import('playwright-core').Page} page
 * @param {string} fileName
 * @param {number} timeout ms
 */
export async function openFromExplorer(page, fileName, timeout) {
  const row = page.locator(SELECTORS.explorerRow).filter({
    has: page.locator(SELECTORS.explorerLabel, { hasText: fileName }),
  }).first();
  await row.waitFor({ state: "visible", timeout });
  await row.dblclick({ timeout });
  await page.locator(SELECTORS.activeTab, { hasText: fileName }).waitFor({ timeout });
  await page.locator(SELECTORS.editor).first().waitFor({ state: "visible", timeout });
}

/**
 * Moves the cursor to a 1-based line and column with Go to Line (Ctrl+G, `line:column`, Enter).
 * @param {import('playwright-core').Page} page
 * @param {number} line
 * @param {number} column
 */
export async function goTo(page, line, column) {
  await page.keyboard.press("Control+G");
  const input = page.locator(`${SELECTORS.quickInput} input`);
  await input.waitFor({ state: "visible", timeout: 5_000 });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press("Enter");
  await input.waitFor({ state: "hidden", timeout: 5_000 });
}

/**
 * Deletes whole lines `from`..`to` (1-based, inclusive) of the focused editor: the cursor goes
 * to the start of `from`, Shift+Down selects to the start of `to + 1`, Delete removes them.
 * @param {import('playwright-core').Page} page
 * @param {number} from
 * @param {number} to
 */
export async function deleteLines(page, from, to) {
  await goTo(page, from, 1);
  for (let i = from; i <= to; i++) await page.keyboard.press("Shift+ArrowDown");
  await page.keyboard.press("Delete");
}

/**
 * In the page: whether an error squiggle overlaps a rendered editor line containing `text`
 * (squiggles live in an overlay layer, lines in another; they are matched by vertical position).
 * @param {[{ line: string, squiggle: string }, string]} args
 * @returns {boolean}
 */
function squiggleOnLineInPage([sel, text]) {
  const lines = [...document.querySelectorAll(sel.line)].filter((el) =>
    el.textContent.replace(/\u00a0/g, " ").includes(text)
  );
  const squiggles = [...document.querySelectorAll(sel.squiggle)];
  return lines.some((line) => {
    const l = line.getBoundingClientRect();
    return squiggles.some((s) => {
      const r = s.getBoundingClientRect();
      return r.width > 0 && r.top < l.bottom && r.bottom > l.top;
    });
  });
}

const squiggleArgs = (lineText) => [
  { line: `${SELECTORS.editor} ${SELECTORS.editorLine}`, squiggle: SELECTORS.squiggleError },
  lineText,
];

/**
 * Waits until an error squiggle sits on the visible editor line that contains `lineText`.
 * @param {import('playwright-core').Page} page
 * @param {string} lineText
 * @param {number} timeout ms
 */
export async function waitForSquiggleOnLine(page, lineText, timeout) {
  await page.waitForFunction(squiggleOnLineInPage, squiggleArgs(lineText), {
    timeout,
    polling: 250,
  });
}

/**
 * Whether an error squiggle sits on the visible editor line that contains `lineText` now.
 * @param {import('playwright-core').Page} page
 * @param {string} lineText
 * @returns {Promise<boolean>}
 */
export function hasSquiggleOnLine(page, lineText) {
  return page.evaluate(squiggleOnLineInPage, squiggleArgs(lineText));
}

/**
 * Opens the Problems panel with Ctrl+Shift+M unless it is showing.
 * @param {import('playwright-core').Page} page
 */
async function openProblems(page) {
  const panel = page.locator(SELECTORS.problemsPanel);
  if (await panel.isVisible()) return;
  await page.keyboard.press("Control+Shift+M");
  await panel.waitFor({ state: "visible", timeout: 5_000 });
}

/**
 * Opens the Problems panel (Ctrl+Shift+M) and waits for a row containing `text`.
 * @param {import('playwright-core').Page} page
 * @param {string} text
 * @param {number} timeout ms
 * @returns {Promise<string>} the row's full text
 */
export async function problemsRow(page, text, timeout) {
  await openProblems(page);
  const row = page.locator(SELECTORS.problemsRow, { hasText: text }).first();
  try {
    await row.waitFor({ state: "visible", timeout });
  } catch {
    const rows = await problemsRows(page);
    throw new Error(
      `no Problems row with "${text}" within ${timeout} ms; rows: ${rows.join(" | ") || "none"}`,
    );
  }
  return (await row.innerText()).replace(/\s+/g, " ").trim();
}

/**
 * Texts of all rows of the Problems panel (opening it if needed).
 * @param {import('playwright-core').Page} page
 * @returns {Promise<string[]>}
 */
export async function problemsRows(page) {
  await openProblems(page);
  const texts = await page.locator(SELECTORS.problemsRow).allInnerTexts();
  return texts.map((t) => t.replace(/\s+/g, " ").trim());
}

/**
 * In the page: every row of the Problems panel as data, in order. A marker row gets the file row
 * above it (its aria-label, e.g. "5 problems in file x.tool.json of folder alpha/tools").
 * @param {typeof SELECTORS} sel
 */
function markersInPage(sel) {
  const out = [];
  let file = "";
  const rows = [...document.querySelectorAll(sel.problemsRow)]
    .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index));
  for (const row of rows) {
    const text = (q) => (row.querySelector(q)?.textContent ?? "").replace(/\s+/g, " ").trim();
    if (row.querySelector(sel.problemsResource)) {
      file = row.getAttribute("aria-label") || text(sel.problemsResource);
      continue;
    }
    const icon = row.querySelector(sel.problemsIcon);
    const severity = ["error", "warning", "info"].find((s) =>
      icon?.classList.contains(s) || icon?.querySelector(`.codicon-${s}`)
    );
    out.push({
      file,
      severity: severity ?? `unknown (${icon?.className})`,
      // The first message line also holds the details (source, code, place): leave them out.
      message: (() => {
        const line = row.querySelector(sel.problemsMessage)?.cloneNode(true);
        if (!line) return "";
        for (const el of line.querySelectorAll(sel.problemsDetails)) el.remove();
        return line.textContent.replace(/\s+/g, " ").trim();
      })(),
      source: text(sel.problemsSource),
      code: text(sel.problemsCode),
      at: text(sel.problemsLine),
      text: row.textContent.replace(/\s+/g, " ").trim(),
    });
  }
  return out;
}

/**
 * The marker rows of the Problems panel (opening it if needed), each with the file row above it.
 * The list is virtual: maximize the panel first ({@link maximizePanel}) when it may be long.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<{ file: string, severity: string, message: string, source: string,
 *   code: string, line: number, column: number, text: string }[]>}
 */
export async function problemsMarkers(page) {
  await openProblems(page);
  const rows = await page.evaluate(markersInPage, SELECTORS);
  return rows.map(({ at, ...row }) => {
    // "[Ln 4, Col 14]"
    const m = /Ln (\d+), Col (\d+)/.exec(at);
    return { ...row, line: m ? Number(m[1]) : NaN, column: m ? Number(m[2]) : NaN };
  });
}

/**
 * Maximizes the panel unless it is (its "Maximize Panel" toggle, aria-pressed when on), so that
 * the Problems list renders all its rows.
 * @param {import('playwright-core').Page} page
 */
export async function maximizePanel(page) {
  await openProblems(page);
  const button = page.locator(SELECTORS.panelMaximize).first();
  await button.waitFor({ state: "visible", timeout: 5_000 });
  if ((await button.getAttribute("aria-pressed")) === "true") return;
  await button.click({ timeout: 5_000 });
  await page.locator(`${SELECTORS.panelMaximize}[aria-pressed="true"]`).first().waitFor({
    timeout: 5_000,
  });
}

/**
 * Opens a file by its path below a workspace folder through the Explorer: each folder on the way
 * is expanded with a click (unless expanded), the file is double-clicked, and its tab awaited.
 * `segments` starts with the workspace folder's name in a multi-root workspace (whose roots are
 * rows), and with the first child in a single-folder one.
 * @param {import('playwright-core').Page} page
 * @param {string[]} segments e.g. ["alpha", "tools", "example.lookup.tool.json"]
 * @param {number} timeout ms
 */
export async function openPathFromExplorer(page, segments, timeout) {
  await page.locator(SELECTORS.explorerRow).first().waitFor({ state: "visible", timeout });
  let level = 0;
  let after = -1;
  for (const [i, name] of segments.entries()) {
    // The first row below the previous segment's, one level deeper, with this name. Rows are
    // ordered by their data-index (a virtual list: DOM order is not guaranteed).
    const found = await poll(() =>
      page.evaluate(
        ([sel, name, after, level]) => {
          for (const row of document.querySelectorAll(sel.row)) {
            const index = Number(row.getAttribute("data-index"));
            const rowLevel = Number(row.getAttribute("aria-level"));
            if (
              index > after && (level === 0 || rowLevel === level + 1) &&
              row.querySelector(sel.label)?.textContent.trim() === name
            ) return { index, level: rowLevel, expanded: row.getAttribute("aria-expanded") };
          }
          return undefined;
        },
        [{ row: SELECTORS.explorerRow, label: SELECTORS.explorerLabel }, name, after, level],
      ), timeout);
    if (!found) throw new Error(`no Explorer row "${name}" (path ${segments.join("/")})`);
    const row = page.locator(`${SELECTORS.explorerRow}[data-index="${found.index}"]`);
    ({ level, index: after } = found);
    if (i === segments.length - 1) await row.dblclick({ timeout });
    else if (found.expanded !== "true") await row.click({ timeout });
  }
  const fileName = segments.at(-1);
  await page.locator(SELECTORS.activeTab, { hasText: fileName }).waitFor({ timeout });
  await page.locator(SELECTORS.editor).first().waitFor({ state: "visible", timeout });
}

/** Polls `fn` every 250 ms until it returns a truthy value or `ms` pass; returns the last. */
async function poll(fn, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Shows the hover at the cursor (Ctrl+K Ctrl+I) and waits for one containing `text`.
 * @param {import('playwright-core').Page} page
 * @param {string} text
 * @param {number} timeout ms
 * @returns {Promise<string>} the hover's text
 */
export async function showHover(page, text, timeout) {
  await page.keyboard.press("Control+K");
  await page.keyboard.press("Control+I");
  const hover = page.locator(SELECTORS.hover, { hasText: text }).first();
  await hover.waitFor({ state: "visible", timeout });
  // Its parts arrive separately (our diagnostic, then the JSON schema's description): wait up to
  // 3 s for the text to hold still for half a second.
  let last = "";
  for (let stable = 0, end = Date.now() + 3_000; stable < 2 && Date.now() < end;) {
    const now = await hover.innerText().catch(() => "");
    stable = now === last ? stable + 1 : 0;
    last = now;
    await page.waitForTimeout(250);
  }
  return last.replace(/\s+/g, " ").trim();
}

/**
 * Opens the quick-fix menu at the cursor (Ctrl+.) and waits for an action titled `title`.
 * @param {import('playwright-core').Page} page
 * @param {string} title
 * @param {number} timeout ms
 * @returns {Promise<string[]>} the titles listed
 */
export async function openQuickFix(page, title, timeout) {
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+.");
  const listed = async () =>
    (await page.locator(SELECTORS.actionWidgetRow).allInnerTexts())
      .map((t) => t.replace(/\s+/g, " ").trim()).filter(Boolean);
  try {
    await page.locator(SELECTORS.actionWidgetRow, { hasText: title }).first().waitFor({
      state: "visible",
      timeout,
    });
  } catch {
    const titles = await listed();
    throw new Error(
      `no action "${title}" within ${timeout} ms; the menu lists: ${
        titles.join(" | ") || "nothing"
      }`,
    );
  }
  return await listed();
}

/**
 * Clicks the quick-fix action titled `title` in the open menu.
 * @param {import('playwright-core').Page} page
 * @param {string} title
 */
export async function applyQuickFix(page, title) {
  await page.locator(SELECTORS.actionWidgetRow, { hasText: title }).first().click({
    timeout: 5_000,
  });
  await page.locator(SELECTORS.actionWidgetRow).first().waitFor({
    state: "hidden",
    timeout: 5_000,
  });
}

/**
 * Saves the active editor (Ctrl+S) and waits for its tab to lose the dirty mark.
 * @param {import('playwright-core').Page} page
 * @param {number} timeout ms
 */
export async function save(page, timeout) {
  await page.keyboard.press("Control+S");
  await page.locator(SELECTORS.dirtyTab).waitFor({ state: "detached", timeout });
}

/**
 * Focuses the text of the visible editor without moving the cursor somewhere unknown: clicks the
 * text area, after which callers position the cursor with {@link goTo}.
 * @param {import('playwright-core').Page} page
 */
export async function focusEditor(page) {
  await page.locator(`${SELECTORS.editor} ${SELECTORS.editorLines}`).first().click({
    timeout: 5_000,
  });
}
