import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { PageQueryError } from './errors';
import { isSortKey, type SortKey } from './sort-key';

/**
 * Where a page token points. `after`: the page starting just after `key`; `before`: the page
 * ending just before `key`; `last`: the last page, resolved when used. `index` is the 1-based
 * page the token leads to, as known when it was issued (a hint: inserts may shift it).
 * `scope` binds the token to the filter it was issued for.
 */
export type PageCursor =
  | { kind: 'after'; key: SortKey; index: number; scope: string }
  | { kind: 'before'; key: SortKey; index: number; scope: string }
  | { kind: 'last'; scope: string };

const VERSION = 1;
const MAX_TOKEN_LENGTH = 4096;
const DOMAIN = 'railyard/page-token/v1\n';

function keyBytes(secret: string | Buffer): Buffer {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  if (bytes.length === 0) throw new TypeError('the page token secret must not be empty');
  return bytes;
}

const mac = (payload: string, secret: string | Buffer): Buffer =>
  createHmac('sha256', keyBytes(secret)).update(DOMAIN).update(payload).digest();

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Short digest of the request's filter (repo, status, ...): key order does not matter. */
export function scopeOf(filter: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(filter ?? null)))
    .digest()
    .subarray(0, 12)
    .toString('base64url');
}

/** `<base64url JSON>.<base64url HMAC-SHA256>`: opaque to clients, unforgeable without the secret. */
export function encodePageToken(cursor: PageCursor, secret: string | Buffer): string {
  const body =
    cursor.kind === 'last'
      ? { v: VERSION, k: 'l', s: cursor.scope }
      : { v: VERSION, k: cursor.kind === 'after' ? 'a' : 'b', s: cursor.scope, i: cursor.index, key: cursor.key };
  const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  return `${payload}.${mac(payload, secret).toString('base64url')}`;
}

const invalid = () => new PageQueryError('INVALID_PAGE_TOKEN', 'page_token is not a token this server issued');

/**
 * Verifies and reads a token. Throws INVALID_PAGE_TOKEN for anything not signed with `secret`
 * (forged, truncated, edited) and PAGE_TOKEN_MISMATCH when it was issued for another filter.
 */
export function decodePageToken(token: string, secret: string | Buffer, expectedScope: string): PageCursor {
  if (token.length > MAX_TOKEN_LENGTH) throw invalid();
  const parts = token.split('.');
  const [payload, signature] = parts;
  if (parts.length !== 2 || !payload || !signature) throw invalid();
  const expected = mac(payload, secret);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();

  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const b = body as { v?: unknown; k?: unknown; s?: unknown; i?: unknown; key?: unknown };
  if (typeof body !== 'object' || body === null || b.v !== VERSION || typeof b.s !== 'string') throw invalid();
  if (b.s !== expectedScope) {
    throw new PageQueryError('PAGE_TOKEN_MISMATCH', 'page_token was issued for a different request; start again without a token');
  }
  if (b.k === 'l') return { kind: 'last', scope: b.s };
  if ((b.k === 'a' || b.k === 'b') && isSortKey(b.key) && typeof b.i === 'number' && Number.isInteger(b.i) && b.i >= 1) {
    return { kind: b.k === 'a' ? 'after' : 'before', key: b.key, index: b.i, scope: b.s };
  }
  throw invalid();
}
