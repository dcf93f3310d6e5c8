import { generateKeyPairSync } from 'node:crypto';
import { REPO, useFakeGithub } from './test-support';

// GitHub App authentication as the fake checks it: App JWTs, installation tokens, permissions, budgets.

jest.setTimeout(30_000);

let now = Date.now();

describe('fake GitHub authentication', () => {
  const ctx = useFakeGithub({ now: () => new Date(now) }, { budget: 40 });

  beforeEach(() => {
    now = Date.now();
  });

  test('when the App presents a valid JWT, then it gets a token of more than 40 characters that lasts an hour', async () => {
    const { status, body } = await ctx.client.call('POST', `/app/installations/${ctx.inst.id}/access_tokens`, {
      auth: `bearer ${ctx.client.appJwt()}`,
    });
    expect(status).toBe(201);
    const { token, expires_at: expiresAt } = body as { token: string; expires_at: string };
    expect(token.length).toBeGreaterThan(40);
    expect(Date.parse(expiresAt) - now).toBeGreaterThan(59 * 60 * 1000);
    expect(Date.parse(expiresAt) - now).toBeLessThanOrEqual(60 * 60 * 1000);
  });

  test('when the JWT is signed by another key, then it is refused', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { status, body } = await ctx.client.call('GET', '/app', { auth: `bearer ${ctx.client.appJwt({}, other)}` });
    expect(status).toBe(401);
    expect(body).toMatchObject({ message: 'A JSON web token could not be decoded' });
  });

  test('when the JWT would expire more than ten minutes from now, then it is refused', async () => {
    const seconds = Math.floor(now / 1000);
    const { status, body } = await ctx.client.call('GET', '/app', {
      auth: `bearer ${ctx.client.appJwt({ iat: seconds, exp: seconds + 20 * 60 })}`,
    });
    expect(status).toBe(401);
    expect(body).toMatchObject({ message: "'Expiration time' claim ('exp') is too far in the future" });
  });

  test('when the JWT has expired, then it is refused', async () => {
    const seconds = Math.floor(now / 1000);
    const { status } = await ctx.client.call('GET', '/app', {
      auth: `bearer ${ctx.client.appJwt({ iat: seconds - 900, exp: seconds - 300 })}`,
    });
    expect(status).toBe(401);
  });

  test('when a repository route is called with no token or with the JWT, then it is refused', async () => {
    expect((await ctx.client.call('GET', `/repos/${REPO}`)).status).toBe(401);
    expect((await ctx.client.call('GET', `/repos/${REPO}`, { auth: `bearer ${ctx.client.appJwt()}` })).status).toBe(401);
    expect((await ctx.client.call('GET', `/repos/${REPO}`, { auth: ctx.inst.id })).status).toBe(200);
  });

  test('when an hour has passed, then the token is no longer accepted', async () => {
    expect((await ctx.client.call('GET', `/repos/${REPO}`, { auth: ctx.inst.id })).status).toBe(200);
    now += 60 * 60 * 1000;
    const { status, body } = await ctx.client.call('GET', `/repos/${REPO}`, { auth: ctx.inst.id });
    expect(status).toBe(401);
    expect(body).toMatchObject({ message: 'Bad credentials' });
  });

  test('when the installation is suspended, then no token is minted', async () => {
    ctx.fake.suspend(ctx.inst.id);
    const { status } = await ctx.client.call('POST', `/app/installations/${ctx.inst.id}/access_tokens`, {
      auth: `bearer ${ctx.client.appJwt()}`,
    });
    expect(status).toBe(403);
  });

  test('when the App lacks a permission, then the operation is not accessible to it', async () => {
    const sha = (await ctx.fake.branchSha(REPO, 'main')) as string;
    const status = await ctx.client.call('POST', `/repos/${REPO}/statuses/${sha}`, {
      auth: ctx.inst.id,
      body: { state: 'success', context: 'x' },
    });
    expect(status).toMatchObject({ status: 403, body: { message: 'Resource not accessible by integration' } });
    ctx.fake.protectBranch(REPO, 'main', { contexts: ['test'], strict: false });
    // Classic protection needs administration rights; the branch itself (contents) shows the required contexts.
    expect((await ctx.client.call('GET', `/repos/${REPO}/branches/main/protection`, { auth: ctx.inst.id })).status).toBe(403);
    const branch = await ctx.client.call('GET', `/repos/${REPO}/branches/main`, { auth: ctx.inst.id });
    expect(branch.body).toMatchObject({ protected: true, protection: { required_status_checks: { contexts: ['test'] } } });
  });

  test('when a repository is outside the installation, then it does not exist for the App', async () => {
    await ctx.fake.createRepo({ repo: 'someone/else' });
    expect((await ctx.client.call('GET', '/repos/someone/else', { auth: ctx.inst.id })).status).toBe(404);
    expect((await ctx.client.call('GET', '/repos/someone/else/installation', { auth: `bearer ${ctx.client.appJwt()}` })).status).toBe(404);
  });

  test('when the hourly budget is spent, then requests are refused with the reset time until the hour turns', async () => {
    let last = await ctx.client.call('GET', `/repos/${REPO}`, { auth: ctx.inst.id });
    while (last.status === 200) last = await ctx.client.call('GET', `/repos/${REPO}`, { auth: ctx.inst.id });
    expect(last.status).toBe(403);
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(last.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(now);
    now += 60 * 60 * 1000 + 1000;
    const after = await ctx.client.call('GET', `/repos/${REPO}`, { auth: `token ${await freshToken()}` });
    expect(after.status).toBe(200);
  });

  const freshToken = async (): Promise<string> => {
    const { body } = await ctx.client.call('POST', `/app/installations/${ctx.inst.id}/access_tokens`, {
      auth: `bearer ${ctx.client.appJwt({ iat: Math.floor(now / 1000) - 30, exp: Math.floor(now / 1000) + 540 })}`,
    });
    return (body as { token: string }).token;
  };
});
