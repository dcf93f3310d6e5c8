import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** One key of RAILYARD_WEBHOOKS_SECRET_KEYS: a name of the operator's choosing and 32 bytes. */
export interface SecretKey {
  id: string;
  key: Buffer;
}

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretKeyMissing extends Error {
  constructor(keyId: string, endpointId: string) {
    super(
      `the signing secret of webhook endpoint ${endpointId} is sealed with key "${keyId}", which RAILYARD_WEBHOOKS_SECRET_KEYS does not list (docs/webhooks.md, "Secrets at rest")`,
    );
    this.name = 'SecretKeyMissing';
  }
}

/**
 * Seals the endpoints' signing secrets before they go into the event log, and opens them when the
 * endpoints are read (D249). AES-256-GCM with a fresh IV per seal, the endpoint id as associated
 * data (a sealed secret copied onto another endpoint does not open). The first key seals; every key
 * opens, so a new key can go first while the old one still opens what it sealed. With no key,
 * secrets are stored as given, as before; a secret stored in clear always opens as itself.
 */
export class SecretBox {
  constructor(private readonly keys: readonly SecretKey[] = []) {
    for (const k of keys) if (k.key.length !== 32) throw new RangeError(`webhook secret key "${k.id}" must be 32 bytes`);
  }

  /** The key new secrets are sealed with; undefined when secrets are stored in clear. */
  get sealingKey(): string | undefined {
    return this.keys[0]?.id;
  }

  seal(secret: string, endpointId: string): string {
    const k = this.keys[0];
    if (!k) return secret;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', k.key, iv);
    cipher.setAAD(Buffer.from(endpointId, 'utf8'));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${k.id}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
  }

  open(stored: string, endpointId: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    const [keyId = '', iv = '', body = ''] = stored.slice(PREFIX.length).split(':');
    const k = this.keys.find((key) => key.id === keyId);
    if (!k) throw new SecretKeyMissing(keyId, endpointId);
    const bytes = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', k.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(endpointId, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  /** Whether a stored secret is not sealed with the first key: in clear while a key is set, or under an older key. */
  stale(stored: string): boolean {
    const first = this.keys[0];
    if (!first) return false;
    return !stored.startsWith(`${PREFIX}${first.id}:`);
  }
}
