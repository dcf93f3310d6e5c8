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
