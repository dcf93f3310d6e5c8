import { hostMergeability } from './host-mergeability';

describe('a code host PR as the queue sees its mergeability', () => {
  it('when the PR is a draft, then it is unspecified whatever the host computed (not ready, not a conflict)', () => {
    expect(hostMergeability({ open: true, draft: true, mergeable: true })).toBe('unspecified');
    expect(hostMergeability({ open: true, draft: true, mergeable: false })).toBe('unspecified');
  });

  it('when the host is still working it out, then it is unspecified; otherwise its verdict', () => {
    expect(hostMergeability({ open: true, draft: false, mergeable: null })).toBe('unspecified');
    expect(hostMergeability({ open: true, draft: false, mergeable: true })).toBe('mergeable');
    expect(hostMergeability({ open: true, draft: false, mergeable: false })).toBe('not_mergeable');
  });

  it('when the PR is closed or merged, then it is not mergeable', () => {
    expect(hostMergeability({ open: false, draft: false, mergeable: true })).toBe('not_mergeable');
  });
});
