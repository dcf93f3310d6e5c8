import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { SqliteEventStore } from '@railyard/eventstore';
import { localHostStatuses, type EventStoreCommitStatusStore } from '@railyard/githost';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { checkFileName } from '../../urls';
import { LocalCiRunner, type LocalCiRunnerOptions } from '../local-ci-runner';
import type { CheckFinished } from '../outcome';

/**
 * A fresh data dir with one bare repository for every test of a file, and the runners a test makes
 * on it, closed after it. Create it at the top of a test file: it registers its own hooks.
 */
export class RunnerBed {
  root = '';
  gitRoot = '';
  gitDir = '';
  /** The data dir's event store, as a runner process of its own opens it (runner-process.ts). */
  eventStore!: SqliteEventStore;
  statuses!: EventStoreCommitStatusStore;
  private runners: LocalCiRunner[] = [];

  constructor(
    private readonly repo: RepoRef,
    private readonly defaults: Partial<LocalCiRunnerOptions> = {},
  ) {
    beforeEach(async () => {
      this.root = await makeTempDir();
      this.gitRoot = path.join(this.root, 'git');
      ({ gitDir: this.gitDir } = await createRepoWithCommits(this.gitRoot, this.repo));
      this.eventStore = new SqliteEventStore({ file: path.join(this.root, 'events.sqlite') });
      this.statuses = localHostStatuses({ eventStore: this.eventStore, gitRoot: this.gitRoot });
      this.runners = [];
    });
    afterEach(async () => {
      await Promise.all(this.runners.map((r) => r.close()));
      await this.statuses.close();
      await this.eventStore.close();
      await removeTempDir(this.root);
    });
  }

  /** A runner on the bed; each check it finishes is pushed to `finished` (how many times a check really ran). */
  runner(opts: Partial<LocalCiRunnerOptions> = {}, finished: CheckFinished[] = []): LocalCiRunner {
    const r = new LocalCiRunner({
      gitRoot: this.gitRoot,
      dataDir: this.root,
      statuses: this.statuses,
      publicUrl: () => 'http://railyard.test',
      killGraceMs: 300,
      onCheckFinished: (event) => void finished.push(event),
      ...this.defaults,
      ...opts,
    });
    this.runners.push(r);
    return r;
  }

  logOf(testRunId: string, check: string): Promise<string> {
    return fs.readFile(path.join(this.root, 'ci-logs', testRunId, checkFileName(check)), 'utf8');
  }
}
