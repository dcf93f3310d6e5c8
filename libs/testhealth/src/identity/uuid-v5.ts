import { createHash } from 'node:crypto';

/** RFC 4122 namespace for URLs; Trunk's test ids are v5 UUIDs in this namespace. */
export const NAMESPACE_URL = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** The version nibble of a UUID string, or undefined when the string is not a UUID. */
export function uuidVersion(value: string): number | undefined {
  if (!isUuid(value)) return undefined;
  return Number.parseInt(value.charAt(14), 16);
}

function uuidBytes(uuid: string): Buffer {
  if (!isUuid(uuid)) throw new TypeError(`not a UUID: ${uuid}`);
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Name-based UUID (RFC 4122 §4.3, SHA-1). `name` is hashed as UTF-8. */
export function uuidV5(name: string, namespace: string = NAMESPACE_URL): string {
  const digest = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  const bytes = digest.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  return formatUuid(bytes);
}
