import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { EXCERPT_CHARS } from './delivery-store';
import { AddressRefused, resolveChecked, type AddressPolicy, type Lookup } from './ssrf';

export interface SendResult {
  status: number | null;
  ok: boolean;
  error?: string;
  latencyMs: number;
  responseExcerpt: string;
}

export interface SendOptions {
  policy: AddressPolicy;
  timeoutMs: number;
  signal?: AbortSignal;
  lookup?: Lookup;
  /** Keep-alive agents of one endpoint's worker (a connection reused was made to an address checked then). */
  agents?: { http: http.Agent; https: https.Agent };
}

/**
 * POSTs one body to a receiver: resolves its host, checks every address (ssrf.ts), then connects to
 * the checked address and no other (the socket's lookup is pinned to it), with TLS still checking the
 * name. Redirects are not followed: a 3xx is a failure, so a receiver cannot send us elsewhere.
 */
export const sendOnce = async (url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<SendResult> => {
  const started = performance.now();
  const elapsed = (): number => performance.now() - started;
  let pinned: { address: string; family: number };
  try {
    pinned = await resolveChecked(url, options.policy, options.lookup);
  } catch (err) {
    const error = err instanceof AddressRefused ? `refused: ${err.message}` : `could not resolve: ${(err as Error).message}`;
    return { status: null, ok: false, error, latencyMs: elapsed(), responseExcerpt: '' };
  }
  const lookup: LookupFunction = (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Railyard-Webhooks/1',
          ...headers,
          'content-length': Buffer.byteLength(body),
        },
        lookup,
        ...(options.agents ? { agent: target.protocol === 'https:' ? options.agents.https : options.agents.http } : {}),
        timeout: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let excerpt = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (excerpt.length < EXCERPT_CHARS) excerpt += chunk.slice(0, EXCERPT_CHARS - excerpt.length);
        });
        res.on('end', () => {
          resolve({ status, ok: status >= 200 && status < 300, latencyMs: elapsed(), responseExcerpt: excerpt });
        });
        res.on('error', (err) => resolve({ status, ok: false, error: err.message, latencyMs: elapsed(), responseExcerpt: excerpt }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', (err) => resolve({ status: null, ok: false, error: err.message, latencyMs: elapsed(), responseExcerpt: '' }));
    req.end(body);
  });
};
