import { getMetricsFromIterator, type PromData, type PromHistogramData, type PromMetrics } from 'prom2javascript';

/**
 * A scrape parsed by a real Prometheus text-format parser, with lookups by name and labels.
 * Lookups match samples whose labels include the given ones and throw unless exactly one matches,
 * so a test never reads the wrong series by accident.
 */
export interface Scrape {
  raw: PromMetrics;
  names(): string[];
  type(name: string): string | undefined;
  value(name: string, labels?: Record<string, string>): number;
  histogram(name: string, labels?: Record<string, string>): { buckets: Record<string, number>; sum: number; count: number };
  /** Every sample of a gauge or counter family, labels and value. */
  samples(name: string): PromData[];
}

const matches = (have: Record<string, string>, want: Record<string, string>): boolean =>
  Object.entries(want).every(([k, v]) => have[k] === v);

const one = <T extends { labels: Record<string, string> }>(name: string, rows: T[], labels: Record<string, string>): T => {
  const found = rows.filter((r) => matches(r.labels, labels));
  if (found.length !== 1) throw new Error(`${name}${JSON.stringify(labels)}: ${found.length} samples match`);
  return found[0] as T;
};

export const parseScrape = async (text: string): Promise<Scrape> => {
  const raw = await getMetricsFromIterator(text.split('\n')[Symbol.iterator]());
  const family = (name: string) => {
    const f = raw[name];
    if (!f) throw new Error(`no metric family ${name} in the scrape`);
    return f;
  };
  return {
    raw,
    names: () => Object.keys(raw),
    type: (name) => raw[name]?.type,
    value: (name, labels = {}) => one(name, family(name).data as PromData[], labels).value,
    histogram: (name, labels = {}) => {
      const h = one(name, family(name).data as PromHistogramData[], labels);
      return { buckets: h.buckets, sum: h.sum ?? NaN, count: h.count };
    },
    samples: (name) => (raw[name]?.data as PromData[] | undefined) ?? [],
  };
};
