import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import { isValidBranchName } from './names';
import { pullsDirOf } from './pull-file';

/** What changed in one bare repository, as far as file notifications tell. */
export type RepoChange = { kind: 'pull'; number: number } | { kind: 'branch'; branch: string } | { kind: 'resync' };

const PULL_FILE = /^([1-9][0-9]{0,15})\.json$/;

/**
 * Follows one bare repository through file notifications (inotify on Linux), with no git process and
 * no polling: the PR files (`railyard/pulls/<n>.json`, rewritten by rename on every change), the loose
 * refs of the named branches, and `packed-refs`. Where a directory cannot be watched (it does not
 * exist yet, or the platform says no) the watcher reports a `resync` and its owner falls back on its
 * slower verification. A PR head moved with plain git (not through `railyard pr update`) is not seen
 * here: see docs/githost.md.
 */
export class RepoWatcher {
  private readonly watchers: FSWatcher[] = [];
  private closed = false;

  constructor(
    private readonly gitDir: string,
    private readonly branches: readonly string[],
    private readonly onChange: (change: RepoChange) => void,
  ) {
    // The folder of PR files exists once a PR was opened; made now so a queue created first hears of it.
    try {
      mkdirSync(pullsDirOf(gitDir), { recursive: true });
    } catch {
      // Read-only or gone: verification covers it.
    }
    this.add(pullsDirOf(gitDir), (file) => {
      const m = PULL_FILE.exec(file);
      if (m) this.onChange({ kind: 'pull', number: Number(m[1]) });
    });
    const byDir = new Map<string, string[]>();
    for (const branch of branches) {
      if (!isValidBranchName(branch)) continue;
      const dir = path.join(gitDir, 'refs', 'heads', path.dirname(branch));
      byDir.set(dir, [...(byDir.get(dir) ?? []), branch]);
    }
    for (const [dir, names] of byDir)
      this.add(dir, (file) => {
        for (const branch of names) if (file === path.basename(branch)) this.onChange({ kind: 'branch', branch });
      });
    this.add(gitDir, (file) => {
      if (file === 'packed-refs') for (const branch of this.branches) this.onChange({ kind: 'branch', branch });
    });
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.splice(0)) w.close();
  }

  private add(dir: string, onFile: (file: string) => void): void {
    try {
      const w = watch(dir, { persistent: false }, (_event, file) => {
        if (this.closed) return;
        if (file === null) this.onChange({ kind: 'resync' });
        else onFile(file.toString());
      });
      w.on('error', () => {
        w.close();
        if (!this.closed) this.onChange({ kind: 'resync' });
      });
      this.watchers.push(w);
    } catch {
      // Nothing to watch there yet (no PR opened, branch only packed): verification covers it.
    }
  }
}
