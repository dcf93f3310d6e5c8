import { RUN_STATUS_WORDS, wordsFor } from '@railyard/domain';
import { html, raw, type SafeHtml } from './html';

const fmt = (n: number): string => (Math.round(n * 10) / 10).toString();

export interface Bar {
  /** The bar's name under the x axis (kept short). */
  label: string;
  value: number;
}

const W = 320;
const H = 150;
const LEFT = 44;
const BOTTOM = 30;
const TOP = 16;

/**
 * A bar chart as inline SVG, readable without JavaScript: a y axis with its unit and top value, an x
 * axis naming each bar and what the bars are, and each bar's value written above it. The title and
 * aria-label say every value, for screen readers and hover.
 */
export const barChart = (
  label: string,
  bars: readonly Bar[],
  axes: { x: string; unit: string },
  show = (v: number) => fmt(v),
): SafeHtml => {
  if (bars.length === 0) return html`<p class="muted">${label}: no data yet.</p>`;
  const max = Math.max(...bars.map((b) => b.value), 0) || 1;
  const plotW = W - LEFT - 4;
  const plotH = H - TOP - BOTTOM;
  const step = plotW / bars.length;
  const shown = bars.length <= 12;
  const marks = bars
    .map((b, i) => {
      const h = (b.value / max) * plotH;
      const x = LEFT + i * step;
      return [
        `<rect x="${fmt(x + 1)}" y="${fmt(TOP + plotH - h)}" width="${fmt(Math.max(1, step - 2))}" height="${fmt(h)}"></rect>`,
        shown
          ? `<text x="${fmt(x + step / 2)}" y="${fmt(TOP + plotH - h - 2)}" text-anchor="middle">${escapeText(show(b.value))}</text>`
          : '',
        shown ? `<text x="${fmt(x + step / 2)}" y="${TOP + plotH + 12}" text-anchor="middle">${escapeText(b.label)}</text>` : '',
      ].join('');
    })
    .join('');
  const axesMarks =
    `<line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${TOP + plotH}"></line>` +
    `<line class="axis" x1="${LEFT}" y1="${TOP + plotH}" x2="${W - 4}" y2="${TOP + plotH}"></line>` +
    `<text x="${LEFT - 3}" y="${TOP + 4}" text-anchor="end">${escapeText(show(max))}</text>` +
    `<text x="${LEFT - 3}" y="${TOP + plotH}" text-anchor="end">0</text>` +
    `<text x="2" y="${TOP - 5}">${escapeText(axes.unit)}</text>` +
    `<text x="${LEFT + plotW / 2}" y="${H - 3}" text-anchor="middle">${escapeText(axes.x)}</text>`;
  const summary = bars.map((b) => `${b.label}: ${show(b.value)}`).join(', ');
  return html`<figure>
    <svg class="chart" role="img" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" aria-label="${label} (${axes.unit}): ${summary}">
      <title>${label} (${axes.unit}): ${summary}</title>
      ${raw(axesMarks + marks)}
    </svg>
    <figcaption>${label}</figcaption>
  </figure>`;
};

/** Escapes text written into the SVG by our own code (labels may carry user text such as a queue branch). */
const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Run lengths as a bar chart, in seconds or (when a run took two minutes or more) minutes, each bar named by its run's short id. */
export const durationChart = (
  label: string,
  runs: readonly { label: string; seconds: number }[],
  x = 'runs, oldest first (first characters of the run id)',
): SafeHtml => {
  const minutes = runs.some((r) => r.seconds >= 120);
  return barChart(
    label,
    runs.map((r) => ({ label: r.label.slice(0, 4), value: minutes ? r.seconds / 60 : r.seconds })),
    { x, unit: minutes ? 'minutes' : 'seconds' },
  );
};

/** Which PRs each test run stacks, one row per run: dependents (ahead) then the tested PRs, as inline SVG. */
export const runGraph = (
  runs: readonly { testRunId: string; dependentPrs: number[]; prNumbers: number[]; status: string; bisection: boolean }[],
): SafeHtml => {
  if (runs.length === 0) return html`<p class="muted">No test run in flight.</p>`;
  const cell = 44;
  const row = 26;
  const width = 150 + cell * Math.max(1, ...runs.map((r) => r.dependentPrs.length + r.prNumbers.length));
  const height = row * runs.length + 4;
  const rows = runs.map((r, i) => {
    const y = i * row + 2;
    const stack = [...r.dependentPrs.map((n) => ({ n, tested: false })), ...r.prNumbers.map((n) => ({ n, tested: true }))];
    return html`<g>
      <text x="0" y="${y + 17}"
        >run ${r.testRunId.slice(0, 8)}${r.bisection ? ' (bisect)' : ''} ${wordsFor(RUN_STATUS_WORDS, r.status)}</text
      >
      ${stack.map(
        (s, j) =>
          html`<rect
              x="${150 + j * cell}"
              y="${y}"
              width="${cell - 4}"
              height="${row - 4}"
              class="${s.tested ? 'tested' : 'stacked'}"
            ></rect>
            <text x="${150 + j * cell + 4}" y="${y + 16}">#${s.n}</text>`,
      )}
    </g>`;
  });
  const label = runs
    .map((r) => `run ${r.testRunId.slice(0, 8)} tests ${r.prNumbers.join(', ')} on ${r.dependentPrs.join(', ') || 'the target'}`)
    .join('; ');
  return html`<figure>
    <svg class="graph" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" aria-label="${label}">
      <title>Test runs: ${label}</title>
      ${rows}
    </svg>
    <figcaption class="muted">One row per run: blue boxes are the PRs it tests, grey ones the PRs ahead it is stacked on.</figcaption>
  </figure>`;
};
