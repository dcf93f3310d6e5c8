import { parseSubcommand, UsageError } from '../args';
import type { RepoRef } from '@railyard/domain';
import { GitHostError, gitRootFromEnv, LocalGitAdmin, LocalGitHost, parseRepoSpec } from '@railyard/githost';

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const USAGE = `usage: railyard pr <subcommand> …   (PRs of the local git host under RAILYARD_GIT_ROOT)
  pr open   --repo HOST/OWNER/NAME --number N --head BRANCH|SHA --base BRANCH [--title T] [--author A]
  pr update --repo HOST/OWNER/NAME --number N [--head BRANCH|SHA] [--base BRANCH] [--title T]
  pr close  --repo HOST/OWNER/NAME --number N
  pr show   --repo HOST/OWNER/NAME --number N
Each prints the PR as JSON. Exit codes: 0 done, 1 refused (unknown repository or PR, PR already open, …), 2 bad usage.`;

const OPTIONS = {
  repo: { type: 'string' },
  number: { type: 'string' },
  head: { type: 'string' },
  base: { type: 'string' },
  title: { type: 'string' },
  author: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = Exclude<keyof typeof OPTIONS, 'help'>;

const ALLOWED: Record<string, readonly OptionName[]> = {
  open: ['repo', 'number', 'head', 'base', 'title', 'author'],
  update: ['repo', 'number', 'head', 'base', 'title'],
  close: ['repo', 'number'],
  show: ['repo', 'number'],
};

interface Parsed {
  sub: string;
  repo: RepoRef;
  number: number;
  values: Partial<Record<OptionName, string>>;
}

const parse = (argv: string[]): Parsed | 'help' => {
  const parsed = parseSubcommand('pr', argv, OPTIONS, ALLOWED);
  if (parsed === 'help') return 'help';
  const { sub } = parsed;
  const values = parsed.values as Partial<Record<OptionName | 'help', string>>;
  const { help: _help, ...given } = values;
  if (given.repo === undefined) throw new UsageError('--repo is required');
  if (given.number === undefined) throw new UsageError('--number is required');
  const repo = parseRepoSpec(given.repo);
  if (repo === null)
    throw new UsageError(`--repo must be HOST/OWNER/NAME of letters, digits, '.', '_' or '-', got ${JSON.stringify(given.repo)}`);
  const number = Number(given.number);
  if (!/^[1-9][0-9]*$/.test(given.number) || !Number.isSafeInteger(number)) {
    throw new UsageError(`--number must be a positive integer, got ${JSON.stringify(given.number)}`);
  }
  if (sub === 'open' && (given.head === undefined || given.base === undefined)) throw new UsageError('pr open needs --head and --base');
  if (sub === 'update' && given.head === undefined && given.base === undefined && given.title === undefined) {
    throw new UsageError('pr update needs at least one of --head, --base, --title');
  }
  return { sub, repo, number, values: given };
};

/**
 * `railyard pr …`: opens, updates, closes and shows PRs of the local git host, as a forge's UI
 * would. `argv` is what follows `pr` on the command line.
 */
export const prCommand = async (
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> => {
  let parsed: Parsed | 'help';
  try {
    parsed = parse(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`railyard pr: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  if (parsed === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { sub, repo, number, values } = parsed;
  const root = gitRootFromEnv(env);
  const host = new LocalGitHost({ root, maxConcurrentGit: 1 });
  try {
    await run(new LocalGitAdmin({ root }), sub, repo, number, values);
    const snapshot = await host.getPullRequest(repo, number);
    if (snapshot === null) {
      io.stderr.write(`railyard pr ${sub}: no PR #${number} in ${values.repo ?? ''} (git root ${root})\n`);
      return 1;
    }
    io.stdout.write(`${JSON.stringify(snapshot, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof GitHostError)) throw err;
    io.stderr.write(`railyard pr ${sub}: ${err.message}\n`);
    return err.code === 'INVALID_INPUT' ? 2 : 1;
  } finally {
    await host.close();
  }
};

const run = async (admin: LocalGitAdmin, sub: string, repo: RepoRef, number: number, v: Parsed['values']): Promise<void> => {
  switch (sub) {
    case 'open':
      await admin.openPullRequest({ repo, number, head: v.head ?? '', base: v.base ?? '', title: v.title, author: v.author });
      return;
    case 'update':
      await admin.updatePullRequest({ repo, number, head: v.head, base: v.base, title: v.title });
      return;
    case 'close':
      await admin.closePullRequest({ repo, number });
      return;
    default:
      return;
  }
};
