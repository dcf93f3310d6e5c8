import Database from 'better-sqlite3';

type All = (...args: unknown[]) => unknown[];

/**
 * Records every page read of the event log in this process (SQLite's `global_position > ?` query),
 * with how many rows each found, until `restore` is called. better-sqlite3's statements share one
 * prototype, so this sees the reads of every store object, whichever connection makes them.
 */
export const recordLogReads = (): { reads: number[]; restore: () => void } => {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { all: All };
  probe.close();
  const original = proto.all;
  const reads: number[] = [];
  proto.all = function (this: { source: string }, ...args: unknown[]) {
    const rows = original.apply(this, args);
    if (this.source.includes('global_position > ?')) reads.push(rows.length);
    return rows;
  };
  return { reads, restore: () => void (proto.all = original) };
};
