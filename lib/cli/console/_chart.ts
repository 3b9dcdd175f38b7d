/**
 * The stored calls per version over time, as an SVG drawn on the server (no script, no chart
 * library, nothing inline the Content-Security-Policy would refuse): stacked bars, one colour per
 * version, at most 120 bars (a bar is a day, or as many days as the span needs), with a legend and
 * a table of the same numbers for readers who do not see the picture.
 *
 * @module
 */
import type { CallsOnDay } from "../../../mod.ts";
import { type Html, html } from "./_html.ts";

const DAY = 86_400_000;
const MAX_BARS = 120;
const W = 720, H = 180, PAD_L = 44, PAD_B = 22, PAD_T = 8;

const dayNumber = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY);
const dayText = (n: number) => new Date(n * DAY).toISOString().slice(0, 10);

/**
 * The chart of a tool's calls.
 *
 * @param days Calls per version per day (the versions the reader may see).
 * @param versions The versions, oldest first (their colours follow this order).
 * @param now The time: the chart runs up to today when calls are recent.
 * @returns The figure.
 */
export function callChart(days: CallsOnDay[], versions: string[], now: number): Html {
  if (days.length === 0) return html`<p class="muted" data-chart="empty">No stored calls yet.</p>`;
  const numbers = days.map((d) => dayNumber(d.day)).filter((n) => Number.isFinite(n));
  const last = Math.max(...numbers);
  const today = Math.floor(now / DAY);
  const end = today - last <= 30 ? today : last;
  const first = Math.min(...numbers);
  const span = end - first + 1;
  const per = Math.max(1, Math.ceil(span / MAX_BARS));
  const bars = Math.ceil(span / per);
  const colour = new Map(versions.map((v, i) => [v, i % 8]));
  const stacks: Map<string, number>[] = Array.from({ length: bars }, () => new Map());
  const totals = new Map<string, number>();
  for (const d of days) {
    const n = dayNumber(d.day);
    if (!Number.isFinite(n)) continue;
    const i = Math.floor((n - first) / per);
    stacks[i].set(d.version, (stacks[i].get(d.version) ?? 0) + d.calls);
    totals.set(d.version, (totals.get(d.version) ?? 0) + d.calls);
  }
  const peak = Math.max(1, ...stacks.map((s) => [...s.values()].reduce((a, b) => a + b, 0)));
  const plotW = W - PAD_L - 4, plotH = H - PAD_B - PAD_T;
  const bw = plotW / bars;
  const rects: Html[] = [];
  stacks.forEach((stack, i) => {
    let y = H - PAD_B;
    for (const v of versions) {
      const n = stack.get(v);
      if (!n) continue;
      const h = (n / peak) * plotH;
      y -= h;
      rects.push(
        html`
          <rect class="s${colour.get(v) ?? 0}" x="${(PAD_L + i * bw).toFixed(1)}" y="${y.toFixed(
            1,
          )}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${h.toFixed(1)}">
            <title>${v}, ${dayText(first + i * per)}${per > 1
              ? ` (${per} days)`
              : ""}: ${n} calls</title>
          </rect>
        `,
      );
    }
  });
  const shown = versions.filter((v) => totals.has(v));
  const label = `Stored calls per ${per === 1 ? "day" : `${per} days`} from ${dayText(first)} to ${
    dayText(end)
  }, by version: ${shown.map((v) => `${v} ${totals.get(v)}`).join(", ")}`;
  return html`
    <figure data-chart="${days.length}">
      <svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${label}"
        xmlns="http://www.w3.org/2000/svg">
    <line class="axis" x1="${PAD_L}" y1="${H - PAD_B}" x2="${W - 4}" y2="${H - PAD_B}"/>
    <line class="axis" x1="${PAD_L}" y1="${PAD_T}" x2="${PAD_L}" y2="${H - PAD_B}"/>
    <text x="${PAD_L - 6}" y="${PAD_T + 10}" text-anchor="end" font-size="11">${peak}</text>
    <text x="${PAD_L - 6}" y="${H - PAD_B}" text-anchor="end" font-size="11">0</text>
    <text x="${PAD_L}" y="${H - 6}" font-size="11">${dayText(first)}</text>
    <text x="${W - 4}" y="${H - 6}" text-anchor="end" font-size="11">${dayText(end)}</text>
    ${rects}
      </svg>
      <figcaption>
        <ul class="legend">${shown.map((v) =>
          html`<li><svg width="12" height="12" aria-hidden="true"><rect class="s${
            colour.get(v) ?? 0
          }" width="12" height="12"/></svg> ${v}: ${totals.get(v)} calls</li>`
        )}</ul>
      </figcaption>
    </figure>
  `;
}
