/**
 * Position of a row in a listing's total order, compared element by element (numbers before
 * strings, strings by code unit). Make it total by ending with a unique id, and encode descending
 * numeric components by negating them, e.g. `[-pullRequestsImpacted, id]`.
 */
export type SortKey = readonly (string | number)[];

export function compareKeys(a: SortKey, b: SortKey): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a[i] as string | number;
    const y = b[i] as string | number;
    if (x === y) continue;
    if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export function isSortKey(value: unknown): value is SortKey {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)));
}
