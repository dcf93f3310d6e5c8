import jwt from 'jsonwebtoken';
import type { FakeGithub } from './fake-github';

/**
 * A bare HTTP client for the fake GitHub, for tests of the fake itself (the product talks to it
 * through Octokit). It signs App JWTs with the App's key and keeps one token per installation.
 */
export class FakeGithubClient {
  private readonly tokens = new Map<number, string>();

  constructor(private readonly fake: FakeGithub) {}

  /** An App JWT as GitHub asks for it: RS256, issued 30 s ago, valid for under 10 minutes. */
  appJwt(claims: { iat?: number; exp?: number; iss?: string } = {}, key = this.fake.appPrivateKey): string {
    const now = Math.floor(Date.now() / 1000);
    return jwt.sign({ iat: now - 30, exp: now + 540, iss: String(this.fake.appId), ...claims }, key, { algorithm: 'RS256' });
  }

  async token(installationId: number): Promise<string> {
    const known = this.tokens.get(installationId);
    if (known) return known;
    const { status, body } = await this.call('POST', `/app/installations/${installationId}/access_tokens`, {
      auth: `bearer ${this.appJwt()}`,
    });
    if (status !== 201) throw new Error(`token request answered ${status}: ${JSON.stringify(body)}`);
    const token = (body as { token: string }).token;
    this.tokens.set(installationId, token);
    return token;
  }

  /** One request; `auth` is the whole Authorization header, or an installation id to use its token. */
  async call(
    method: string,
    path: string,
    opts: { auth?: string | number; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: unknown; headers: Headers }> {
    const auth = typeof opts.auth === 'number' ? `token ${await this.token(opts.auth)}` : opts.auth;
    const response = await fetch(`${this.fake.url}${path}`, {
      method,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...opts.headers,
      },
      body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown), headers: response.headers };
  }
}
