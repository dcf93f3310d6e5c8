import { deserialize, serialize } from 'node:v8';
import type { RecordedEvent } from '@railyard/eventstore';
import type { PagedDoc, PagedDocs } from '../memory/snapshot';
import { MemoryReadModelStore } from '../queue/memory/store';

/** The embedded server's table of paged-out documents (D320) in a Map: copies in and out, as the file makes them. */
export class PagedInMemory implements PagedDocs {
  readonly rows = new Map<string, { kind: string; group: string; num: number; body: Buffer }>();
  get(kind: string, key: string): unknown {
    const row = this.rows.get(`${kind}/${key}`);
    return row ? deserialize(row.body) : undefined;
  }
  range(kind: string, group: string, afterNum: number, limit: number): { num: number; doc: unknown }[] {
    return [...this.rows.values()]
      .filter((r) => r.kind === kind && r.group === group && r.num > afterNum)
      .sort((a, b) => a.num - b.num)
      .slice(0, limit)
      .map((r) => ({ num: r.num, doc: deserialize(r.body) }));
  }
  forget(): void {
    this.rows.clear();
  }
  put(docs: readonly PagedDoc[]): void {
    for (const d of docs) this.rows.set(`${d.kind}/${d.key}`, { kind: d.kind, group: d.group, num: d.num, body: serialize(d.doc) });
  }
}

/** A queue store that takes a snapshot after every batch and pages out all it can: the most paging there can be. */
export const pagingAfterEveryBatch = (): MemoryReadModelStore => {
  const store = new MemoryReadModelStore();
  const paged = new PagedInMemory();
  store.pageTo(paged);
  const apply = store.apply.bind(store);
  store.apply = async (events: RecordedEvent[]) => {
    await apply(events);
    const out = store.snapshot()?.pagedOut ?? [];
    paged.put(out);
    store.pagedOutDone(out);
  };
  return store;
};
