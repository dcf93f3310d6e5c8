import { DEFAULT_SETTINGS } from '@railyard/domain';
import type { QueueView } from '@railyard/readmodels';
import { createRequestOfForm, FormError, updateRequestOfForm } from './queue-forms';

const QUEUE: QueueView = {
  queueId: 'q',
  repo: { host: 'git.local', owner: 'acme', name: 'widgets' },
  branch: 'main',
  state: 'running',
  settings: DEFAULT_SETTINGS,
  requiredStatuses: ['build'],
  createdAt: '2026-03-01T09:00:00.000Z',
  updatedAt: '2026-03-01T09:00:00.000Z',
};

describe('the queue forms as API requests', () => {
  it('when the create form is filled, then it is the createQueue request with numbers, choices and checks typed', () => {
    expect(
      createRequestOfForm({
        host: 'git.local',
        owner: 'acme',
        name: 'widgets',
        targetBranch: 'release',
        mode: 'parallel',
        concurrency: '3',
        batch: 'yes',
        testingTimeoutMinutes: '',
        requiredStatuses: 'build, test',
      }),
    ).toEqual({
      repo: QUEUE.repo,
      targetBranch: 'release',
      mode: 'parallel',
      concurrency: 3,
      batch: true,
      requiredStatuses: ['build', 'test'],
    });
  });

  it('when a field holds what createQueue refuses, then the form is refused naming the field', () => {
    expect(() =>
      createRequestOfForm({ host: 'git.local', owner: 'acme', name: 'widgets', targetBranch: 'main', concurrency: '0' }),
    ).toThrow(/^concurrency: /);
    expect(() =>
      createRequestOfForm({ host: 'git.local', owner: 'acme', name: 'widgets', targetBranch: 'main', concurrency: 'lots' }),
    ).toThrow(FormError);
    expect(() => createRequestOfForm({ host: '', owner: 'acme', name: 'widgets', targetBranch: 'main' })).toThrow(/repo\.host/);
  });

  it('when the settings form empties the required checks, then the update clears them; otherwise it sets them', () => {
    expect(updateRequestOfForm(QUEUE, { requiredStatuses: '' })).toEqual({
      repo: QUEUE.repo,
      targetBranch: 'main',
      deleteRequiredStatuses: true,
    });
    expect(updateRequestOfForm(QUEUE, { requiredStatuses: 'a,b', concurrency: '2' })).toMatchObject({
      requiredStatuses: ['a', 'b'],
      concurrency: 2,
    });
  });
});
