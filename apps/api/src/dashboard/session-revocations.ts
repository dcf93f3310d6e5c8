import type { BlobStore } from '@railyard/eventstore';

/**
 * Dashboard sessions signed out before their expiry. A session's cookie is self-contained (signed,
 * no server state), so signing out must leave a record every API replica reads, and that outlives a
 * restart: a named blob per session, in the blob store the replicas already share (the data dir
 * embedded, PostgreSQL or Redis distributed: docs/operations.md "Blobs"). One small record per
 * sign-out; a record outliving its session's expiry is never read again.
 */
export interface SessionRevocations {
  revoke(nonce: string, expiresAt: number): Promise<void>;
  isRevoked(nonce: string): Promise<boolean>;
}

/** A session's nonce as the cookie carries it (9 random bytes, base64url). */
const NONCE = /^[A-Za-z0-9_-]{12}$/;

const nameOf = (nonce: string): string => {
  if (!NONCE.test(nonce)) throw new RangeError('not a session nonce');
  return `dashboard-sessions/revoked/${nonce}`;
};

export const blobRevocations = (blobs: Pick<BlobStore, 'putNamed' | 'getNamed'>): SessionRevocations => ({
  revoke: (nonce, expiresAt) => blobs.putNamed(nameOf(nonce), Buffer.from(`${new Date(expiresAt).toISOString()}\n`)),
  isRevoked: async (nonce) => NONCE.test(nonce) && (await blobs.getNamed(nameOf(nonce))) !== null,
});
