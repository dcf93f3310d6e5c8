import { createHash } from 'node:crypto';

/** Blob keys are SHA-256 hex digests of the bytes. */
export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const DIGEST = /^[0-9a-f]{64}$/;

/** Anything else cannot name a blob; checking it also keeps caller input out of paths and keys. */
export function isDigest(value: string): boolean {
  return DIGEST.test(value);
}

/**
 * A named blob's name: segments of letters, digits, `_`, `%`, `-` and `.` joined by `/`, none
 * starting with `.` (so no `..`), 512 characters at most. The fs adapter makes it a path below its
 * directory and the Redis one a key, so this one check is what keeps both inside their space.
 */
const NAME = /^[A-Za-z0-9_%-][A-Za-z0-9_%.-]*(?:\/[A-Za-z0-9_%-][A-Za-z0-9_%.-]*)*$/;

export function isBlobName(value: string): boolean {
  return value.length <= 512 && NAME.test(value);
}

/** For the writers: a bad name is the caller's bug, refused before anything is stored. */
export function assertBlobName(value: string): void {
  if (!isBlobName(value)) throw new RangeError(`not a valid blob name: ${JSON.stringify(value.slice(0, 80))}`);
}

/** A space of named blobs is one segment: `ci-log` holds `ci-log/<run>/<check>.log`. */
export function assertBlobSpace(value: string): void {
  if (value.includes('/') || !isBlobName(value)) throw new RangeError(`not a blob name space: ${JSON.stringify(value.slice(0, 80))}`);
}
