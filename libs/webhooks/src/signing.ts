import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * The Standard Webhooks scheme (the one Svix, and so Trunk, uses): the secret is `whsec_` and the
 * base64 of the key; the signature header is `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`.
 * Node's crypto signs; the tests verify with the `standardwebhooks` package, which we did not write.
 */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');

export const signatureOf = (secret: string, messageId: string, timestampSeconds: number, body: string): string =>
  `v1,${createHmac('sha256', keyOf(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;

/** The headers a signed message carries. */
export const signedHeaders = (secret: string, messageId: string, timestampSeconds: number, body: string): Record<string, string> => ({
  'webhook-id': messageId,
  'webhook-timestamp': String(timestampSeconds),
  'webhook-signature': signatureOf(secret, messageId, timestampSeconds, body),
});

/**
 * A message's id, the same on every attempt and every replica: derived from the event it came from
 * (its id and the message's place among the event's messages) and the endpoint. Receivers dedupe on it.
 */
export const messageIdOf = (endpointId: string, eventId: string, index: number): string =>
  `msg_${createHash('sha256').update(`${endpointId}\n${eventId}\n${index}`).digest('base64url').slice(0, 27)}`;
