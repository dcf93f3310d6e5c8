import { html, raw, type SafeHtml } from './html';

const W = 160;
const H = 36;

const fmt = (n: number): string => (Math.round(n * 10) / 10).toString();

/** A small bar chart as inline SVG: readable without JavaScript, labelled for screen readers. */
export const barChart = (label: string, values: readonly number[], unit = ''): SafeHtml => {
  const max = Math.max(1, ...values);
  const step = values.length > 0 ? W / values.length : W;
  const bars = values
    .map((v, i) => {
      const h = (v / max) * (H - 2);
      return `<rect x="${fmt(i * step + 1)}" y="${fmt(H - h)}" width="${fmt(Math.max(1, step - 2))}" height="${fmt(h)}"></rect>`;
    })
    .join('');
  const summary = values.length === 0 ? 'no data' : `${values.map((v) => fmt(v)).join(', ')}${unit}`;
  return html`<svg class="chart" role="img" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" aria-label="${label}: ${summary}">
    <title>${label}: ${summary}</title>
    ${raw(bars)}
  </svg>`;
};

/** A sparkline of values in time order, as inline SVG. */
export const sparkline = (label: string, given: readonly number[], unit = ''): SafeHtml => {
  if (given.length === 0) return html`<span class="muted">no data</span>`;
  // One value still draws a line, level across the chart.
  const values = given.length === 1 ? [given[0] as number, given[0] as number] : given;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? W / (values.length - 1) : W;
  const points = values.map((v, i) => `${fmt(i * step)},${fmt(H - 1 - (v / max) * (H - 2))}`).join(' ');
  const summary = `${values.length} values, max ${fmt(max)}${unit}`;
  return html`<svg class="chart" role="img" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" aria-label="${label}: ${summary}">
    <title>${label}: ${summary}</title>
    <polyline fill="none" points="${points}"></polyline>
  </svg>`;
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
      <text x="0" y="${y + 17}">${r.testRunId.slice(0, 8)}${r.bisection ? ' (bisect)' : ''} ${r.status}</text>
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
    .map((r) => `run ${r.testRunId} tests ${r.prNumbers.join(', ')} on ${r.dependentPrs.join(', ') || 'the target'}`)
    .join('; ');
  return html`<svg class="graph" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" aria-label="${label}">
    <title>Test runs: ${label}</title>
    ${rows}
  </svg>`;
};
