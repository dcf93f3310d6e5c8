/** Every request the fake answered, for assertions and for counting API calls in benchmarks. */
export interface RequestRecord {
  operation: string;
  /** `METHOD /path/{template}`, the same label the client's request counter uses. */
  route: string;
  status: number;
  installationId: number | null;
  /** When the request arrived and when its answer went out (performance.now(), milliseconds). */
  startedAt: number;
  endedAt: number;
}

export class RequestLog {
  records: RequestRecord[] = [];

  record(entry: RequestRecord): void {
    this.records.push(entry);
  }

  /** Requests per route; only those matching `filter` when given. */
  byRoute(filter: (r: RequestRecord) => boolean = () => true): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.records) if (filter(r)) counts[r.route] = (counts[r.route] ?? 0) + 1;
    return counts;
  }

  count(filter: (r: RequestRecord) => boolean = () => true): number {
    return this.records.filter(filter).length;
  }

  /** The most requests matching `filter` that were ever being answered at the same time. */
  maxConcurrency(filter: (r: RequestRecord) => boolean = () => true): number {
    const edges = this.records
      .filter(filter)
      .flatMap((r) => [
        { at: r.startedAt, delta: 1 },
        { at: r.endedAt, delta: -1 },
      ])
      // An answer that ends exactly when the next request starts does not overlap it.
      .sort((a, b) => a.at - b.at || a.delta - b.delta);
    let current = 0;
    let peak = 0;
    for (const edge of edges) {
      current += edge.delta;
      peak = Math.max(peak, current);
    }
    return peak;
  }

  reset(): void {
    this.records = [];
  }
}
