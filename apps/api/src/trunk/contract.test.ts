import { trunkOperationAt } from './contract';

const getQueue = trunkOperationAt('post', '/v1/getQueue');
const details = trunkOperationAt('post', '/v1/flaky-tests/get-test-details');

const item = {
  stateChangedAt: '2026-12-01T00:00:00Z',
  priorityValue: 100,
  priorityName: 'medium',
  skipTheLine: false,
  noBatch: false,
  prNumber: 7,
  prTitle: 'Fix',
  prSha: 'abc',
  prBaseBranch: 'main',
  prAuthor: 'ada',
};

describe("Trunk's required answer fields", () => {
  it('when the contract is read, then nested required fields are listed under their parents', () => {
    expect(getQueue?.requiredAnswerFields).toEqual(
      expect.arrayContaining(['mergeMethod', 'enqueuedPullRequests', 'enqueuedPullRequests[].prNumber']),
    );
    expect(details?.requiredAnswerFields).toEqual(expect.arrayContaining(['test.status.timestamp', 'test.most_common_failures[].summary']));
    // ticket is optional in Trunk's schema, so its html_url is no required field of the answer.
    expect(details?.requiredAnswerFields).not.toContain('test.ticket.html_url');
  });

  it('when an answer lacks a field or gives it another type, then exactly those fields are refused', () => {
    const { prNumber: _gone, ...withoutNumber } = item;
    const answer = { enqueuedPullRequests: [item, { ...withoutNumber, prTitle: 3 }] };
    expect(getQueue?.refusedAnswerFields(answer)).toEqual(
      expect.arrayContaining(['enqueuedPullRequests[].prNumber', 'enqueuedPullRequests[].prTitle', 'state']),
    );
    expect(getQueue?.refusedAnswerFields(answer)).not.toContain('enqueuedPullRequests[].prSha');
  });
});
