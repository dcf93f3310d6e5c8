import { createHash, timingSafeEqual } from 'node:crypto';

export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes nest: admin can do what write can, write what read can. */
const RANK: Record<Scope, number> = { read: 0, write: 1, admin: 2 };
export const scopeAllows = (held: Scope, needed: Scope): boolean => RANK[held] >= RANK[needed];

export interface ApiToken {
  name: string;
  scope: Scope;
  digest: Buffer;
}

const digestOf = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** The shortest secret a token may have; a configured list with a shorter one does not start. */
export const MIN_SECRET_LENGTH = 16;
/** Longer than any secret anyone configures; a header past it is not worth a hash. */
const MAX_SECRET_LENGTH = 1024;

/**
 * Whether `secret` could be one of the configured secrets at all: one shorter than the minimum, past
 * the maximum, or holding the list's separators never is. Such a header is malformed, not a guess.
 */
export const couldBeSecret = (secret: string): boolean =>
  secret.length >= MIN_SECRET_LENGTH && secret.length <= MAX_SECRET_LENGTH && !/[:,]/.test(secret);

/** `name:secret:scope[,name:secret:scope…]`. A malformed list is a startup error, never a silent open door. */
export const parseTokenList = (raw: string): ApiToken[] => {
  const tokens = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item, i) => {
      const parts = item.split(':');
      const [name, secret, scope] = parts;
      if (parts.length !== 3 || !name || !secret || !scope) throw new Error(`RAILYARD_API_TOKENS entry ${i + 1} is not name:secret:scope`);
      if (!(SCOPES as readonly string[]).includes(scope))
        throw new Error(`RAILYARD_API_TOKENS entry ${i + 1} (${name}) has scope "${scope}"; use read, write or admin`);
      if (secret.length < MIN_SECRET_LENGTH)
        throw new Error(`RAILYARD_API_TOKENS entry ${i + 1} (${name}) has a secret shorter than ${MIN_SECRET_LENGTH} characters`);
      if (secret.length > MAX_SECRET_LENGTH)
        throw new Error(`RAILYARD_API_TOKENS entry ${i + 1} (${name}) has a secret longer than ${MAX_SECRET_LENGTH} characters`);
      return { name, scope: scope as Scope, digest: digestOf(secret) };
    });
  const names = new Set(tokens.map((t) => t.name));
  if (names.size !== tokens.length) throw new Error('RAILYARD_API_TOKENS holds a token name twice');
  return tokens;
};

export class TokenRegistry {
  /** The secret each keep-alive connection last proved, so its next request needs no new hash. */
  private readonly bySocket = new WeakMap<object, { secret: Buffer; token: ApiToken }>();

  constructor(private readonly tokens: ApiToken[]) {}

  /**
   * identify(), remembered per connection: a request on a connection that already presented this very
   * secret is recognised by a constant-time comparison with it instead of a SHA-256 (a few percent of
   * a cheap read's CPU). A different secret on the same connection goes through identify() again.
   */
  identifyOn(connection: object, secret: string): ApiToken | undefined {
    const presented = Buffer.from(secret, 'utf8');
    const known = this.bySocket.get(connection);
    if (known && known.secret.length === presented.length && timingSafeEqual(known.secret, presented)) return known.token;
    const token = this.identify(secret);
    if (token) this.bySocket.set(connection, { secret: presented, token });
    return token;
  }

  /**
   * Compares digests of equal length in constant time and always walks the whole list, so neither the
   * secret's length nor its position in the list shows in the timing.
   */
  identify(secret: string): ApiToken | undefined {
    const candidate = digestOf(secret);
    let found: ApiToken | undefined;
    for (const t of this.tokens) if (timingSafeEqual(t.digest, candidate) && !found) found = t;
    return found;
  }

  /** The configured token of this name (a dashboard session names its token, never holds its secret). */
  byName(name: string): ApiToken | undefined {
    return this.tokens.find((t) => t.name === name);
  }

  get size(): number {
    return this.tokens.length;
  }
}
