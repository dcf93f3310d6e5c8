import type { RepoRef } from '@railyard/domain';
import { GitHostError, LocalGitAdmin, LocalGitHost } from '@railyard/githost';
import { loadConfig } from '@railyard/runtime';
import { UsageError, type CliContext } from '../context';
import { branchOption, prNumberOption, repoOption } from '../identifiers';

interface PrFlags {
  repo?: string;
  number?: string;
  head?: string;
  base?: string;
  title?: string;
  author?: string;
}

type Change = (admin: LocalGitAdmin, repo: RepoRef, number: number, flags: PrFlags) => Promise<unknown>;

/**
 * Runs one change against the local git host (none for `show`) and prints the PR as it is afterwards,
 * as a forge's UI would show it.
 */
const onPr = async (sub: string, flags: PrFlags, ctx: CliContext, change?: Change): Promise<number> => {
  const repo = repoOption(flags.repo);
  const number = prNumberOption(flags.number, '--number');
  if (flags.base !== undefined) branchOption(flags.base, '--base');
  // A head is a branch or a full commit id.
  if (flags.head !== undefined && !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(flags.head)) branchOption(flags.head, '--head');
  const root = loadConfig(ctx.env).gitRoot;
  const host = new LocalGitHost({ root, maxConcurrentGit: 1 });
  try {
    if (change) await change(new LocalGitAdmin({ root }), repo, number, flags);
    const snapshot = await host.getPullRequest(repo, number);
    if (snapshot === null) {
      ctx.io.stderr.write(`railyard pr ${sub}: no PR #${number} in ${flags.repo ?? ''} (git root ${root})\n`);
      return 1;
    }
    ctx.io.stdout.write(`${JSON.stringify(snapshot, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof GitHostError)) throw err;
    if (err.code === 'INVALID_INPUT') throw new UsageError(err.message);
    ctx.io.stderr.write(`railyard pr ${sub}: ${err.message}\n`);
    return 1;
  } finally {
    await host.close();
  }
};

export const prOpen = (flags: PrFlags, ctx: CliContext): Promise<number> => {
  if (flags.head === undefined || flags.base === undefined) throw new UsageError('pr open needs --head and --base');
  return onPr('open', flags, ctx, (admin, repo, number, f) =>
    admin.openPullRequest({ repo, number, head: f.head ?? '', base: f.base ?? '', title: f.title, author: f.author }),
  );
};

export const prUpdate = (flags: PrFlags, ctx: CliContext): Promise<number> => {
  if (flags.head === undefined && flags.base === undefined && flags.title === undefined)
    throw new UsageError('pr update needs at least one of --head, --base, --title');
  return onPr('update', flags, ctx, (admin, repo, number, f) =>
    admin.updatePullRequest({ repo, number, head: f.head, base: f.base, title: f.title }),
  );
};

export const prClose = (flags: PrFlags, ctx: CliContext): Promise<number> =>
  onPr('close', flags, ctx, (admin, repo, number) => admin.closePullRequest({ repo, number }));

export const prShow = (flags: PrFlags, ctx: CliContext): Promise<number> => onPr('show', flags, ctx);
