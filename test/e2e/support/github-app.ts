import { spawnSync } from 'node:child_process';
import { removeTempDir, type FakeGithub } from '@railyard/testkit';
import type { RunningProcess } from './processes';

/**
 * Railyard's GitHub App settings for a fake GitHub, as every process of a test gets them
 * (docs/github.md). The private key goes in as the PEM itself unless a test mounts it as a file.
 */
export const githubAppEnv = (fake: FakeGithub, privateKey: string = fake.appPrivateKey): Record<string, string> => ({
  RAILYARD_GITHUB_APP_ID: String(fake.appId),
  RAILYARD_GITHUB_PRIVATE_KEY: privateKey,
  RAILYARD_GITHUB_WEBHOOK_SECRET: fake.webhookSecret,
  RAILYARD_GITHUB_API_URL: fake.url,
  RAILYARD_GITHUB_HOST: 'github.com',
});

/** Whether any file of the commit says FAIL (git grep exits 0 when something matched). */
export const commitSaysFail = (fake: FakeGithub, repo: string, sha: string): boolean =>
  spawnSync('git', [`--git-dir=${fake.gitDir(repo)}`, 'grep', '-q', 'FAIL', sha, '--', '.']).status === 0;

/**
 * The repository's own CI on the fake, as GitHub Actions would be: it builds every branch Railyard
 * pushes (`railyard-merge/…`) and reports one check run, failing on a tree that holds the word FAIL.
 */
export const ciFailingOnFail = (fake: FakeGithub, repo: string, check = 'ci'): void =>
  fake.ci.configure(repo, {
    branches: (b) => b.startsWith('railyard-merge/'),
    checks: [{ name: check, delayMs: 100, outcome: ({ sha }) => (commitSaysFail(fake, repo, sha) ? 'failure' : 'success') }],
  });

/**
 * Ends a test of a server on the fake GitHub: waits for the webhooks in flight, stops the server and
 * the fake, removes the data directory, and then checks nothing the fake sent broke GitHub's schemas.
 */
export const stopServerAndFake = async (parts: { fake?: FakeGithub; server?: RunningProcess; dir?: string }): Promise<void> => {
  await parts.fake?.webhooks.settled();
  const violations = [...(parts.fake?.violations ?? [])];
  await parts.server?.stop();
  await parts.fake?.stop();
  if (parts.dir) await removeTempDir(parts.dir);
  expect(violations).toEqual([]);
};
