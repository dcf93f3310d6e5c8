import type { RepoFacts, RepoRef } from '@railyard/testhealth';

/** What every bed starts with on its default branch (`trunk`, so no adapter can get by assuming `main`). */
export const INITIAL_FILES = {
  'README.md': '# widgets\n',
  '.github/CODEOWNERS': '* @acme/core\n/src/ @acme/web\n',
  'src/app.ts': 'export {};\n',
};
export const DEFAULT_BRANCH = 'trunk';

/**
 * What a RepoFacts adapter under test needs besides the port: a repository holding INITIAL_FILES on
 * DEFAULT_BRANCH, a way to push commits to it as a person or the merge queue would, and a name the
 * host does not know. The local host does it with git on a bare repository; the GitHub adapter over
 * the fake GitHub, whose repositories are bare repositories too.
 */
export interface RepoFactsBed {
  facts: RepoFacts;
  repo: RepoRef;
  /** A repository of the same host that does not exist (or the GitHub App is not installed on). */
  unknown: RepoRef;
  /** Commits `files` on `branch` (created from the default branch); null deletes a file. Answers the commit. */
  push(branch: string, files: Record<string, string | null>): Promise<string>;
  /** The tree of `sha`, as git itself reads it. */
  treeOf(sha: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The RepoFacts contract (libs/testhealth/src/repo-facts/port.ts): test health gets the same answers
 * from the local git host and from GitHub, so uploads, lists and owners work the same on both.
 */
export const repoFactsContract = (name: string, makeBed: () => Promise<RepoFactsBed>): void => {
  describe(`RepoFacts contract: ${name}`, () => {
    let bed: RepoFactsBed;
    beforeEach(async () => void (bed = await makeBed()));
    afterEach(() => bed.close());

    it('when the repository exists, then it exists and its default branch is the one the host names', async () => {
      expect(await bed.facts.exists(bed.repo)).toBe(true);
      expect(await bed.facts.defaultBranch(bed.repo)).toBe(DEFAULT_BRANCH);
    });

    it('when the repository is unknown, then every fact reads as absent', async () => {
      expect(await bed.facts.exists(bed.unknown)).toBe(false);
      expect(await bed.facts.defaultBranch(bed.unknown)).toBeNull();
      expect(await bed.facts.treeOf(bed.unknown, 'a'.repeat(40))).toBeNull();
      expect(await bed.facts.testBranchOf(bed.unknown, 'run-1')).toBeNull();
      expect((await bed.facts.codeowners(bed.unknown)).rules).toEqual([]);
    });

    it('when a commit is known, then its tree is the one git reads; an unknown or malformed commit has none', async () => {
      const sha = await bed.push(DEFAULT_BRANCH, { 'src/more.ts': 'export const more = 1;\n' });
      expect(await bed.facts.treeOf(bed.repo, sha)).toBe(await bed.treeOf(sha));
      // Asked twice: a cached answer must be the same answer.
      expect(await bed.facts.treeOf(bed.repo, sha)).toBe(await bed.treeOf(sha));
      expect(await bed.facts.treeOf(bed.repo, 'b'.repeat(40))).toBeNull();
      expect(await bed.facts.treeOf(bed.repo, 'not-a-sha')).toBeNull();
      expect(await bed.facts.treeOf(bed.repo, 'main')).toBeNull();
    });

    it('when the default branch has .github/CODEOWNERS, then its rules decide the owners of a path', async () => {
      const owners = await bed.facts.codeowners(bed.repo);
      expect(owners.ownersOf('src/app.ts')).toEqual(['@acme/web']);
      expect(owners.ownersOf('README.md')).toEqual(['@acme/core']);
    });

    it('when CODEOWNERS exists only at the root, then the root file is read; with none at all, there are no rules', async () => {
      await bed.push(DEFAULT_BRANCH, { '.github/CODEOWNERS': null, CODEOWNERS: '*.md @acme/docs\n' });
      expect((await bed.facts.codeowners(bed.repo)).ownersOf('README.md')).toEqual(['@acme/docs']);
      await bed.push(DEFAULT_BRANCH, { CODEOWNERS: null });
      expect((await bed.facts.codeowners(bed.repo)).rules).toEqual([]);
    });

    it('when CODEOWNERS changes on another branch only, then the default branch rules still apply', async () => {
      await bed.push('feature', { '.github/CODEOWNERS': '* @someone-else\n' });
      expect((await bed.facts.codeowners(bed.repo)).ownersOf('README.md')).toEqual(['@acme/core']);
    });

    it('when a test branch of the run exists, then it is found by the run id; another run or a bad id finds none', async () => {
      await bed.push('railyard-merge/pr-7/run-abc', { 'src/seven.ts': 'export const seven = 7;\n' });
      await bed.push('railyard-merge/pr-8/run-abcd', { 'src/eight.ts': 'export const eight = 8;\n' });
      expect(await bed.facts.testBranchOf(bed.repo, 'run-abc')).toBe('railyard-merge/pr-7/run-abc');
      expect(await bed.facts.testBranchOf(bed.repo, 'run-ab')).toBeNull();
      expect(await bed.facts.testBranchOf(bed.repo, '../run-abc')).toBeNull();
      expect(await bed.facts.testBranchOf(bed.repo, '')).toBeNull();
    });
  });
};
