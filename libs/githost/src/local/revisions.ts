import { GitHostError } from '../errors';
import { CommitFacts } from './commit-facts';
import { runGit } from './git-helper';
import { isValidBranchName } from './names';
import type { RefReader } from './refs';

const HEX = /^[0-9a-f]{4,64}$/;

/**
 * The commit a user means by `rev`: a branch of the repository when one has that name, else a
 * (possibly abbreviated) commit id. Nothing else of git's revision syntax is accepted, so the
 * value can never reach git as an option or a range.
 */
export const resolveCommit = async (gitDir: string, refs: RefReader, rev: string): Promise<string> => {
  if (isValidBranchName(rev)) {
    const sha = await refs.read(gitDir, `refs/heads/${rev}`);
    if (sha !== null) return sha;
  }
  if (HEX.test(rev)) {
    const { code, stdout } = await runGit(gitDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], {
      okCodes: [1, 128],
    });
    if (code === 0) return stdout.trim();
  }
  throw new GitHostError('REVISION_NOT_FOUND', `no branch or commit named ${JSON.stringify(rev)}`);
};

export interface CommitSummary {
  subject: string;
  authorName: string;
  authorEmail: string;
}

const summaries = new CommitFacts<CommitSummary>();

export const commitSummary = (gitDir: string, sha: string): Promise<CommitSummary> =>
  summaries.get(gitDir, sha, async () => {
    const { stdout } = await runGit(gitDir, ['log', '-1', '--format=%s%x00%an%x00%ae', sha]);
    const [subject = '', authorName = '', authorEmail = ''] = stdout.replace(/\n$/, '').split('\0');
    return { subject, authorName, authorEmail };
  });
