/**
 * Prometheus text exposition (format 0.0.4) for series computed at scrape time from read models.
 * prom-client keeps mutable process-wide values, which suits counters a process observes itself;
 * numbers derived per scrape from shared state are rendered here instead, so two concurrent scrapes
 * never see each other's half-set values.
 */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type Labels = Readonly<Record<string, string>>;

export interface ValueSample {
  labels: Labels;
  value: number;
}

export interface HistogramSample {
  labels: Labels;
  /** Cumulative counts, one per bound of the family (observations ≤ bound). */
  cumulative: readonly number[];
  sum: number;
  /** Every observation: the +Inf bucket. */
  count: number;
}

export type MetricFamily =
  | { name: string; help: string; type: 'gauge' | 'counter'; samples: ValueSample[] }
  | { name: string; help: string; type: 'histogram'; bounds: readonly number[]; samples: HistogramSample[] };

/** Folds observations into a histogram sample over `bounds` (ascending, +Inf implied). */
export const histogramOf = (labels: Labels, bounds: readonly number[], values: Iterable<number>): HistogramSample => {
  const perBucket = new Array<number>(bounds.length).fill(0);
  let sum = 0;
  let count = 0;
  for (const v of values) {
    sum += v;
    count += 1;
    const i = bounds.findIndex((b) => v <= b);
    if (i >= 0) perBucket[i] = (perBucket[i] ?? 0) + 1;
  }
  let running = 0;
  const cumulative = perBucket.map((n) => (running += n));
  return { labels, cumulative, sum, count };
};

const NEEDS_ESCAPE = /[\\\n"]/;
const escapeLabel = (v: string): string => (NEEDS_ESCAPE.test(v) ? v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"') : v);
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

export const formatValue = (v: number): string => {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
};

/** `k="v",k2="v2"` without braces; empty for no labels. */
const labelPairs = (labels: Labels): string => {
  let out = '';
  for (const k in labels) out += `${out ? ',' : ''}${k}="${escapeLabel(labels[k] ?? '')}"`;
  return out;
};

/**
 * Every family with its HELP and TYPE, samples grouped under it as the format requires. Built by
 * appending to one string with each sample's labels escaped once: a scrape of a thousand queues is
 * some 150,000 lines, and this is where its time goes.
 */
export const renderFamilies = (families: readonly MetricFamily[]): string => {
  let out = '';
  for (const f of families) {
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    if (f.type === 'histogram') {
      const les = [...f.bounds.map((b) => `le="${formatValue(b)}"`), 'le="+Inf"'];
      for (const s of f.samples) {
        const pairs = labelPairs(s.labels);
        const prefix = `${f.name}_bucket{${pairs ? `${pairs},` : ''}`;
        for (let i = 0; i < f.bounds.length; i++) out += `${prefix}${les[i] ?? ''}} ${formatValue(s.cumulative[i] ?? 0)}\n`;
        const braces = pairs ? `{${pairs}}` : '';
        out += `${prefix}${les[f.bounds.length] ?? ''}} ${formatValue(s.count)}\n${f.name}_sum${braces} ${formatValue(s.sum)}\n${f.name}_count${braces} ${formatValue(s.count)}\n`;
      }
    } else {
      for (const s of f.samples) {
        const pairs = labelPairs(s.labels);
        out += `${f.name}${pairs ? `{${pairs}}` : ''} ${formatValue(s.value)}\n`;
      }
    }
  }
  return out;
};
