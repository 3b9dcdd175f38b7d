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
