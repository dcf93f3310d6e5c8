import { closeSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import type { RepoRef } from '@railyard/domain';
import { PULL_FILE_VERSION, pullFileOf, pullHeadRefOf, pullsDirOf, runGit, type PullFile } from '@railyard/githost';
import { createRepoWithCommits } from '@railyard/testkit';

export const BENCH_REPO: RepoRef = { host: 'git.bench', owner: 'acme', name: 'widgets' };

/** A PR to open: its number and the branch it targets (a queue's branch). */
export interface PullSpec {
  number: number;
  base: string;
}

const COMMIT_TIME = 1_735_689_600; // 2025-01-01T00:00:00Z: fixed, so the fixture's commits are the same every run

/**
 * One `git fast-import` stream that creates the extra target branches at main and gives each PR its
 * own commit on top of main (touching only its own file, so every PR merges cleanly into any of
 * those branches), pointing `refs/pull/<n>/head` at it. Thousands of PRs take seconds this way; one
 * `git` run per PR would take minutes.
 */
const fastImportStream = (mainSha: string, branches: readonly string[], pulls: readonly PullSpec[]): string => {
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const parts: string[] = [];
  for (const branch of branches) if (branch !== 'main') parts.push(`reset refs/heads/${branch}\nfrom ${mainSha}\n\n`);
  for (const { number } of pulls) {
    parts.push(
      `commit ${pullHeadRefOf(number)}\n`,
      `committer Bench Author <author@bench.test> ${COMMIT_TIME + number} +0000\n`,
      data(`Feature ${number}`),
      `from ${mainSha}\n`,
      `M 100644 inline features/f${number}.txt\n`,
      data(`${number}\n`),
    );
  }
  return parts.join('');
};

/** Writes a PR's metadata file with the lock protocol of docs/githost.md: exclusive `.lock`, write, rename. */
const writePullFile = (gitDir: string, pull: PullFile): void => {
  const file = pullFileOf(gitDir, pull.number);
  const fd = openSync(`${file}.lock`, 'wx');
  try {
    writeSync(fd, `${JSON.stringify(pull)}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(`${file}.lock`, file);
};

/**
 * A bare repository under `gitRoot` whose main and `branches` start at one commit, with the given
 * PRs open, written straight in the on-disk format the local git host reads (head ref +
 * `railyard/pulls/<n>.json`).
 */
export const prepareRepository = async (
  gitRoot: string,
  branches: readonly string[],
  pulls: readonly PullSpec[],
  repo: RepoRef = BENCH_REPO,
): Promise<{ gitDir: string; mainSha: string }> => {
  const { gitDir, sha: mainSha } = await createRepoWithCommits(gitRoot, repo, { files: { 'README.md': '# widgets\n' } });
  await runGit(gitDir, ['fast-import', '--quiet'], { input: fastImportStream(mainSha, branches, pulls) });
  mkdirSync(pullsDirOf(gitDir), { recursive: true });
  const at = new Date(COMMIT_TIME * 1000).toISOString();
  for (const { number, base } of pulls) {
    writePullFile(gitDir, {
      version: PULL_FILE_VERSION,
      number,
      title: `Feature ${number}`,
      author: 'bench',
      baseBranch: base,
      state: 'open',
      createdAt: at,
      updatedAt: at,
    });
  }
  return { gitDir, mainSha };
};
