import { FakeGithub, makeTempDir } from '@railyard/testkit';
import { githubAppEnv, stopServerAndFake } from './support/github-app';
import { cartCase, testHealthClient } from './support/junit';
import { startProcess, type RunningProcess } from './support/processes';

/**
 * Test health for a repository on GitHub (docs/test-health.md): the embedded server, configured as a
 * GitHub App against the fake GitHub, takes JUnit uploads for a github.com repository, reads the
 * commit and the default branch's CODEOWNERS through the App, and lists the flaky test with its owners.
 */

jest.setTimeout(180_000);

const TOKEN = 'admin-secret-0123456789abcdef';
const ORG = 'acme-org';
const WIDGETS = { host: 'github.com', owner: 'acme', name: 'widgets' };
/** On the fake, but the App is installed on `acme` only. */
const ELSEWHERE = { host: 'github.com', owner: 'globex', name: 'tools' };

let dir: string;
let fake: FakeGithub;
let server: RunningProcess;

const cart = cartCase;

beforeAll(async () => {
  dir = await makeTempDir('railyard-test-health-github-');
  fake = await FakeGithub.start({ behaviour: { mergedFlagDelayMs: 0 } });
  await fake.createRepo({
    repo: 'acme/widgets',
    files: { 'README.md': '# widgets\n', '.github/CODEOWNERS': '* @acme/everyone\nsrc/cart/ @acme/cart\n' },
  });
  await fake.createRepo({ repo: 'globex/tools', files: { 'README.md': '# tools\n' } });
  fake.install({ account: 'acme' });
  server = await startProcess('apps/server/src/main.ts', {
    RAILYARD_DATA_DIR: dir,
    RAILYARD_API_TOKENS: `admin:${TOKEN}:admin`,
    RAILYARD_ORG_SLUG: ORG,
    ...githubAppEnv(fake),
  });
});

afterAll(() => stopServerAndFake({ fake, server, dir }));

describe('test health for a repository on GitHub, on a real server against the fake GitHub', () => {
  it('when JUnit for a commit of a github.com repository fails and then passes, then the test is listed FLAKY with the owners from its default branch CODEOWNERS', async () => {
    const api = testHealthClient(server.url, TOKEN, ORG, WIDGETS);
    const sha = (await fake.branchSha('acme/widgets', 'main')) as string;

    const first = await api.uploadCases([cart('rounds totals', 'fail'), cart('adds items', 'pass')], { sha, job: 'unit-1' }, 'cart');
    expect(first.status).toBe(200);
    const second = await api.uploadCases([cart('rounds totals', 'pass'), cart('adds items', 'pass')], { sha, job: 'unit-2' }, 'cart');
    expect(second.status).toBe(200);

    const list = await api.unhealthy('FLAKY', { page_size: 10 });
    expect(list.status).toBe(200);
    expect(list.body.tests).toEqual([
      expect.objectContaining({
        name: 'rounds totals',
        repository: { html_url: 'https://github.com/acme/widgets' },
        status: expect.objectContaining({ value: 'flaky' }),
        codeowners: ['@acme/cart'],
        file_path: 'src/cart/totals.test.ts',
      }),
    ]);
  });

  it('when the repository is one the App is not installed on, or none at all, then uploads and lists answer 404 REPO_NOT_FOUND', async () => {
    for (const repo of [ELSEWHERE, { ...WIDGETS, name: 'nothing' }]) {
      const api = testHealthClient(server.url, TOKEN, ORG, repo);
      const upload = await api.uploadCases([cart('rounds totals', 'pass')], { sha: 'a'.repeat(40) }, 'cart');
      expect({ status: upload.status, code: upload.body.error?.code }).toEqual({ status: 404, code: 'REPO_NOT_FOUND' });
      const list = await api.unhealthy('FLAKY');
      expect({ status: list.status, code: list.body.error?.code }).toEqual({ status: 404, code: 'REPO_NOT_FOUND' });
    }
  });

  it('when GitHub answers 5xx for the repository, then the API answers 503 CODE_HOST_UNAVAILABLE with Retry-After, not a 500', async () => {
    await fake.createRepo({ repo: 'acme/gadgets', files: { 'README.md': '# gadgets\n' } });
    fake.faults.inject({ operation: 'repos/get', kind: 'server-error', status: 502, times: Infinity });
    const api = testHealthClient(server.url, TOKEN, ORG, { ...WIDGETS, name: 'gadgets' });
    const list = await api.unhealthy('FLAKY');
    expect({ status: list.status, code: list.body.error?.code, retryAfter: list.headers['retry-after'] }).toEqual({
      status: 503,
      code: 'CODE_HOST_UNAVAILABLE',
      retryAfter: '5',
    });
  });
});
