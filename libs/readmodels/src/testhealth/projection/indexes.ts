import type { SortKey } from '@railyard/testhealth';
import type { TestDoc } from './docs';

/**
 * The listings a test can appear in. Each is ordered by a member string whose byte order equals the
 * spec listing's order, so Redis (ZRANGEBYLEX on equal scores) and memory (sorted arrays) page the
 * same way, by keyset.
 */
export type IndexName = 'flaky' | 'broken' | 'quarantined';

const MAX_IMPACT = 9_999_999_999;
const MAX_TIME_MS = 99_999_999_999_999;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Most impacted first, then by id: the page-token key of an unhealthy test. */
export const unhealthySortKey = (doc: Pick<TestDoc, 'pullRequestsImpactedLast7d' | 'id'>): SortKey => [
  -doc.pullRequestsImpactedLast7d,
  doc.id,
];

/** Most recently quarantined first, then by id. */
export const quarantinedSortKey = (doc: Pick<TestDoc, 'quarantinedAt' | 'id'>): SortKey => [-Date.parse(doc.quarantinedAt ?? ''), doc.id];

export const sortKeyOf = (index: IndexName, doc: TestDoc): SortKey =>
  index === 'quarantined' ? quarantinedSortKey(doc) : unhealthySortKey(doc);

/**
 * The index member for a sort key: the negated number turned into a fixed-width ascending string,
 * then the id. Null for a key no row of this index can have (a token from another listing).
 */
export const memberOfKey = (index: IndexName, key: SortKey): string | null => {
  const [n, id] = key;
  if (key.length !== 2 || typeof n !== 'number' || !Number.isInteger(n) || typeof id !== 'string' || !UUID.test(id)) return null;
  const max = index === 'quarantined' ? MAX_TIME_MS : MAX_IMPACT;
  const value = -n;
  if (value < 0 || value > max) return null;
  return `${String(max - value).padStart(String(max).length, '0')}|${id}`;
};

export const keyOfMember = (index: IndexName, member: string): SortKey => {
  const bar = member.indexOf('|');
  const max = index === 'quarantined' ? MAX_TIME_MS : MAX_IMPACT;
  return [-(max - Number(member.slice(0, bar))), member.slice(bar + 1)];
};

export const idOfMember = (member: string): string => member.slice(member.indexOf('|') + 1);

/** Which listings hold the test, with its member in each. */
export const membershipOf = (doc: TestDoc | null): Map<IndexName, string> => {
  const out = new Map<IndexName, string>();
  if (!doc) return out;
  const put = (index: IndexName) => {
    const member = memberOfKey(index, sortKeyOf(index, doc));
    if (member) out.set(index, member);
  };
  if (doc.status === 'FLAKY') put('flaky');
  if (doc.status === 'BROKEN') put('broken');
  if (doc.quarantined && doc.quarantinedAt) put('quarantined');
  return out;
};

export interface IndexOp {
  index: IndexName;
  op: 'add' | 'remove';
  member: string;
}

/** Index changes between two versions of a test. */
export const indexOpsOf = (before: TestDoc | null, after: TestDoc): IndexOp[] => {
  const was = membershipOf(before);
  const is = membershipOf(after);
  const ops: IndexOp[] = [];
  for (const [index, member] of was) if (is.get(index) !== member) ops.push({ index, op: 'remove', member });
  for (const [index, member] of is) if (was.get(index) !== member) ops.push({ index, op: 'add', member });
  return ops;
};
