import { randomUUID } from 'node:crypto';
import type { EngineCommand } from '@railyard/domain';
import type { FakeGithub } from './fake-github';

type StartTestRun = Extract<EngineCommand, { type: 'StartTestRun' }>;

/**
 * The engine's StartTestRun for one PR alone on the fake repository's main, testing the PR's head
 * itself: how tests put a queued PR in testing on the fake GitHub without running an engine.
 */
export const startTestRunOf = async (
  fake: FakeGithub,
  repo: string,
  pr: { number: number; headSha: string },
  requiredStatuses: string[],
  testRunId: string = randomUUID(),
): Promise<StartTestRun> => {
  const base = (await fake.branchSha(repo, 'main')) ?? '';
  return {
    type: 'StartTestRun',
    testRunId,
    testBranch: `railyard-merge/pr-${pr.number}/${testRunId}`,
    testBranchSha: pr.headSha,
    baseSha: base,
    baseTree: await fake.treeOf(repo, base),
    steps: [{ prNumber: pr.number, sha: pr.headSha, tree: await fake.treeOf(repo, pr.headSha) }],
    prNumbers: [pr.number],
    dependentPrs: [],
    requiredStatuses,
    requiredStatusesSource: 'merge_instance',
  };
};
