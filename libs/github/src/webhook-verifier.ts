import type { EmitterWebhookEvent, EmitterWebhookEventName } from '@octokit/webhooks';
import { loadOctokit } from './octokit-modules';

/** Webhook deliveries checked the way GitHub signs them: HMAC-SHA256 of the raw body, keyed by the App's webhook secret. */

/** Event names without an action (`pull_request`, `push`): what `x-github-event` carries. */
export type GithubWebhookEventName = Exclude<EmitterWebhookEventName, `${string}.${string}`>;

/** A verified delivery of a known event, typed by its name. */
export type GithubWebhookEvent = EmitterWebhookEvent<GithubWebhookEventName>;

export type WebhookRejection = 'missing-signature' | 'invalid-signature' | 'missing-headers' | 'invalid-payload';

export type WebhookVerification =
  | { ok: true; known: true; event: GithubWebhookEvent }
  /** Signed correctly but of an event this Octokit does not know: acknowledge and ignore. */
  | { ok: true; known: false; event: { id: string; name: string; payload: unknown } }
  | { ok: false; reason: WebhookRejection };

export type WebhookHeaders = Record<string, string | string[] | undefined>;

export interface WebhookVerifier {
  /** Checks one delivery: `rawBody` exactly as received (before any JSON parsing), and its headers. */
  verify(rawBody: Buffer | string, headers: WebhookHeaders): Promise<WebhookVerification>;
}

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

export const createWebhookVerifier = async (secret: string): Promise<WebhookVerifier> => {
  const { Webhooks, emitterEventNames } = await loadOctokit();
  const webhooks = new Webhooks({ secret });
  const known = new Set<string>(emitterEventNames);
  return {
    verify: async (rawBody, headers) => {
      const signature = header(headers, 'x-hub-signature-256');
      if (signature === undefined || signature === '') return { ok: false, reason: 'missing-signature' };
      const id = header(headers, 'x-github-delivery');
      const name = header(headers, 'x-github-event');
      if (!id || !name) return { ok: false, reason: 'missing-headers' };
      const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
      const valid = await webhooks.verify(body, signature).catch(() => false);
      if (!valid) return { ok: false, reason: 'invalid-signature' };
      let payload: unknown;
      try {
        payload = JSON.parse(body);
      } catch {
        return { ok: false, reason: 'invalid-payload' };
      }
      if (typeof payload !== 'object' || payload === null) return { ok: false, reason: 'invalid-payload' };
      if (!known.has(name)) return { ok: true, known: false, event: { id, name, payload } };
      return { ok: true, known: true, event: { id, name, payload } as GithubWebhookEvent };
    },
  };
};
