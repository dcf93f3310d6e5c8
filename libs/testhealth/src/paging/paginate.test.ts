import fc from 'fast-check';
import { PageQueryError } from './errors';
import { paginate, type PageQuery } from './paginate';
import { decodePageToken, encodePageToken, scopeOf } from './token';

const SECRET = 'test-secret-of-reasonable-length';

interface Row {
  id: string;
  impacted: number;
}

/** The unhealthy-tests order: most impacted first, then id. */
const keyOf = (r: Row) => [-r.impacted, r.id];
const sortRows = (rows: Row[]) => [...rows].sort((a, b) => b.impacted - a.impacted || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const rowsOf = (n: number): Row[] =>
  sortRows(Array.from({ length: n }, (_, i) => ({ id: `t${String(i).padStart(4, '0')}`, impacted: i % 4 })));

function pageError(run: () => unknown): PageQueryError {
  try {
    run();
  } catch (err) {
    if (err instanceof PageQueryError) return err;
    throw err;
  }
  throw new Error('expected a PageQueryError');
}

describe('paginate: page information', () => {
  it('when the list is empty, then there are no rows, no pages and no tokens', () => {
    expect(paginate([], { page_size: 10, page_token: '' }, keyOf, SECRET)).toEqual({
      rows: [],
      page: { total_rows: 0, total_pages: 0, next_page_token: '', prev_page_token: '', last_page_token: '', page_index: 1 },
    });
  });

  it('when the first page is asked for, then it has a next and a last token but no previous one', () => {
    // given
    const rows = rowsOf(25);
    // when
    const { rows: page1, page } = paginate(rows, { page_size: 10, page_token: '' }, keyOf, SECRET);
    // then
    expect(page1).toEqual(rows.slice(0, 10));
    expect(page).toMatchObject({ total_rows: 25, total_pages: 3, page_index: 1, prev_page_token: '' });
    expect(page.next_page_token).not.toBe('');
    expect(page.last_page_token).not.toBe('');
  });

  it('when following next tokens, then pages are consecutive and the last one has no next token', () => {
    // given
    const rows = rowsOf(25);
    // when
    const p1 = paginate(rows, { page_size: 10 }, keyOf, SECRET);
    const p2 = paginate(rows, { page_size: 10, page_token: p1.page.next_page_token }, keyOf, SECRET);
    const p3 = paginate(rows, { page_size: 10, page_token: p2.page.next_page_token }, keyOf, SECRET);
    // then
    expect(p2.rows).toEqual(rows.slice(10, 20));
    expect(p2.page.page_index).toBe(2);
    expect(p3.rows).toEqual(rows.slice(20));
    expect(p3.page).toMatchObject({ page_index: 3, next_page_token: '' });
  });

  it('when the last page token is used, then it returns the partial last page', () => {
    // given
    const rows = rowsOf(25);
    const first = paginate(rows, { page_size: 10 }, keyOf, SECRET);
    // when
    const last = paginate(rows, { page_size: 10, page_token: first.page.last_page_token }, keyOf, SECRET);
    // then
    expect(last.rows).toEqual(rows.slice(20));
    expect(last.page).toMatchObject({ page_index: 3, total_pages: 3, next_page_token: '' });
  });

  it('when following previous tokens back from the last page, then every page is seen again down to page 1', () => {
    // given
    const rows = rowsOf(25);
    let page = paginate(
      rows,
      { page_size: 10, page_token: paginate(rows, { page_size: 10 }, keyOf, SECRET).page.last_page_token },
      keyOf,
      SECRET,
    );
    const seen = [...page.rows];
    // when
    while (page.page.prev_page_token !== '') {
      page = paginate(rows, { page_size: 10, page_token: page.page.prev_page_token }, keyOf, SECRET);
      seen.unshift(...page.rows);
    }
    // then
    expect(page.page.page_index).toBe(1);
    expect(seen).toEqual(rows);
  });

  it('when the page size is omitted, then 25 rows are returned', () => {
    expect(paginate(rowsOf(30), {}, keyOf, SECRET).rows).toHaveLength(25);
  });

  it('when the rows are not sorted by the key, then paginate refuses them as a programming error', () => {
    expect(() => paginate([...rowsOf(5)].reverse(), { page_size: 2 }, keyOf, SECRET)).toThrow(/not strictly sorted/);
  });
});

describe('paginate: rejected queries', () => {
  it.each([0, -1, 101, 2.5, Number.NaN, '10' as unknown as number])('when page_size is %p, then INVALID_PAGE_SIZE', (size) => {
    expect(pageError(() => paginate(rowsOf(3), { page_size: size }, keyOf, SECRET)).code).toBe('INVALID_PAGE_SIZE');
  });

  it('when page_size is 1 or 100, then it is accepted', () => {
    expect(paginate(rowsOf(150), { page_size: 1 }, keyOf, SECRET).rows).toHaveLength(1);
    expect(paginate(rowsOf(150), { page_size: 100 }, keyOf, SECRET).rows).toHaveLength(100);
  });

  it('when a token is edited, then INVALID_PAGE_TOKEN', () => {
    // given a token whose payload is changed to point elsewhere
    const token = paginate(rowsOf(25), { page_size: 10 }, keyOf, SECRET).page.next_page_token;
    const [payload, signature] = token.split('.') as [string, string];
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { key: unknown[] };
    body.key = [-3, 't9999'];
    const forged = `${Buffer.from(JSON.stringify(body)).toString('base64url')}.${signature}`;
    // when / then
    expect(pageError(() => paginate(rowsOf(25), { page_size: 10, page_token: forged }, keyOf, SECRET)).code).toBe('INVALID_PAGE_TOKEN');
  });

  it.each([
    ['not base64 JSON', 'garbage'],
    ['in three parts', 'a.b.c'],
    ['two empty parts', '.'],
    ['5,000 characters long', `${'x'.repeat(5000)}.y`],
  ])('when the token is %s, then INVALID_PAGE_TOKEN', (_label, token) => {
    expect(pageError(() => paginate(rowsOf(3), { page_size: 2, page_token: token }, keyOf, SECRET)).code).toBe('INVALID_PAGE_TOKEN');
  });

  it('when a token was signed with another secret, then INVALID_PAGE_TOKEN', () => {
    // given
    const token = paginate(rowsOf(25), { page_size: 10 }, keyOf, 'another-secret').page.next_page_token;
    // when / then
    expect(pageError(() => paginate(rowsOf(25), { page_size: 10, page_token: token }, keyOf, SECRET)).code).toBe('INVALID_PAGE_TOKEN');
  });

  it('when a token is reused with another filter, then PAGE_TOKEN_MISMATCH', () => {
    // given
    const token = paginate(rowsOf(25), { page_size: 10 }, keyOf, SECRET, { filter: { status: 'FLAKY' } }).page.next_page_token;
    // when
    const err = pageError(() =>
      paginate(rowsOf(25), { page_size: 10, page_token: token }, keyOf, SECRET, { filter: { status: 'BROKEN' } }),
    );
    // then
    expect(err.code).toBe('PAGE_TOKEN_MISMATCH');
  });
});

describe('page tokens', () => {
  it('when a cursor is encoded and decoded with the same secret and scope, then it comes back unchanged', () => {
    // given
    const scope = scopeOf({ repo: 'a/b', status: 'FLAKY' });
    const cursor = { kind: 'after' as const, key: [-3, 'id-1'], index: 4, scope };
    // when
    const decoded = decodePageToken(encodePageToken(cursor, SECRET), SECRET, scope);
    // then
    expect(decoded).toEqual(cursor);
  });

  it('when two filters differ only in key order, then they share a scope', () => {
    expect(scopeOf({ a: 1, b: { c: 2, d: 3 } })).toBe(scopeOf({ b: { d: 3, c: 2 }, a: 1 }));
    expect(scopeOf({ a: 1 })).not.toBe(scopeOf({ a: 2 }));
  });

  it('when the secret is empty, then encoding is refused', () => {
    expect(() => encodePageToken({ kind: 'last', scope: 's' }, '')).toThrow(TypeError);
  });
});

describe('paginate: concurrent changes', () => {
  it('when rows are inserted before and after the cursor between fetches, then no original row is skipped or repeated', () => {
    // given
    let rows = rowsOf(20);
    const original = new Set(rows.map((r) => r.id));
    const seen: string[] = [];
    // when
    let page = paginate(rows, { page_size: 7 }, keyOf, SECRET);
    seen.push(...page.rows.map((r) => r.id));
    rows = sortRows([...rows, { id: 'new-top', impacted: 99 }, { id: 'new-bottom', impacted: -1 }]);
    while (page.page.next_page_token !== '') {
      page = paginate(rows, { page_size: 7, page_token: page.page.next_page_token }, keyOf, SECRET);
      seen.push(...page.rows.map((r) => r.id));
    }
    // then
    expect(seen.filter((id) => original.has(id)).sort()).toEqual([...original].sort());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain('new-bottom');
    expect(seen).not.toContain('new-top');
  });

  it('when the row a token points after is deleted, then the next page still starts right after it', () => {
    // given
    const rows = rowsOf(10);
    const first = paginate(rows, { page_size: 3 }, keyOf, SECRET);
    const remaining = rows.filter((r) => r.id !== first.rows[2]?.id);
    // when
    const second = paginate(remaining, { page_size: 3, page_token: first.page.next_page_token }, keyOf, SECRET);
    // then
    expect(second.rows).toEqual(rows.slice(3, 6));
  });

  it('property: walking next tokens while rows are inserted and seen rows deleted yields each original row exactly once, in order', () => {
    const scenario = fc.record({
      initial: fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { maxLength: 120 }),
      pageSize: fc.integer({ min: 1, max: 15 }),
      changes: fc.array(
        fc.record({ inserts: fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 6 }), deleteSeen: fc.nat({ max: 3 }) }),
        { maxLength: 40 },
      ),
    });
    fc.assert(
      fc.property(scenario, ({ initial, pageSize, changes }) => {
        const byKey = (a: number, b: number) => a - b;
        let rows = [...initial].sort(byKey);
        const original = new Set(initial);
        const seen: number[] = [];
        const query: PageQuery = { page_size: pageSize };
        let step = 0;
        for (;;) {
          const { rows: pageRows, page } = paginate(rows, query, (n: number) => [n], SECRET, { filter: { repo: 'r' } });
          seen.push(...pageRows);
          if (page.next_page_token === '') break;
          query.page_token = page.next_page_token;
          const change = changes[step % Math.max(1, changes.length)];
          step += 1;
          if (step > 10_000) throw new Error('paging did not terminate');
          if (!change) continue;
          const present = new Set(rows);
          const added = change.inserts.filter((n) => !present.has(n));
          const dropped = new Set(seen.slice(-change.deleteSeen));
          rows = [...new Set([...rows.filter((n) => !dropped.has(n)), ...added])].sort(byKey);
        }
        const originalSeen = seen.filter((n) => original.has(n));
        expect(new Set(originalSeen)).toEqual(original);
        expect(originalSeen).toHaveLength(original.size);
        for (let i = 1; i < seen.length; i += 1) expect(seen[i - 1]).toBeLessThan(seen[i] as number);
      }),
      { numRuns: 200 },
    );
  });
});
