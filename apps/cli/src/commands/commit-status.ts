import { CommitChecker, getCommitStatusesRequest, setCommitStatusRequest } from '@railyard/ci';
import { CLI_REPORTER } from '@railyard/domain';
import { existsSync } from 'node:fs';
import { formatRepo, GitHostError, localHostStatuses, type CommitStatusStore } from '@railyard/githost';
import { loadConfig, openEventStore } from '@railyard/runtime';
import type { z } from 'zod';
import { CommandFailed, UsageError, type CliContext } from '../context';
import { apiTargetOf, postJson, wantsApi, type ApiTarget } from '../http';
import { repoOption } from '../identifiers';

interface StatusFlags {
  repo?: string;
  sha?: string;
  context?: string;
  state?: string;
  /** The server (or its older spelling --api); the status's own link is --target-url. */
  url?: string;
  targetUrl?: string;
  description?: string;
  api?: string;
  token?: string;
}

type SetBody = z.infer<typeof setCommitStatusRequest>;
type ListBody = z.infer<typeof getCommitStatusesRequest>;

/** The same schema as the HTTP endpoint, so a CLI call and an API call accept and refuse the same input. */
const validated = <T extends z.ZodType>(schema: T, input: unknown): z.infer<T> => {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const option = (path: PropertyKey[]): string => (path[0] === 'targetUrl' ? 'target-url' : String(path[0] ?? 'input'));
  throw new UsageError(result.error.issues.map((i) => `--${option(i.path)}: ${i.message}`).join('; '));
};

/** Without --url the data dir's event store (the server may be down); with it, the HTTP API. */
const remoteOf = (flags: StatusFlags, ctx: CliContext): ApiTarget | undefined => {
  if (!wantsApi(flags)) {
    if (flags.token !== undefined) throw new UsageError('--token is only for --url');
    return undefined;
  }
  return apiTargetOf(flags, ctx.settings);
};

const required = (flags: StatusFlags, names: readonly (keyof StatusFlags)[]): void => {
  for (const name of names) if (flags[name] === undefined) throw new UsageError(`--${name} is required`);
};

/**
 * Runs against the configured event store (as `history` reads it), turning the git host's refusals
 * into the command's messages.
 */
const locally = async <T>(ctx: CliContext, sub: string, body: ListBody, work: (store: CommitStatusStore) => Promise<T>) => {
  const config = loadConfig(ctx.env);
  const root = config.gitRoot;
  // Opening SQLite creates a missing file; a mistyped data dir must say so, not keep statuses nobody reads.
  if (config.eventStore.kind === 'sqlite' && !existsSync(config.eventStore.file))
    throw new CommandFailed(`no event store at ${config.eventStore.file} (set RAILYARD_DATA_DIR)`);
  const eventStore = await openEventStore(config);
  const store = localHostStatuses({ eventStore, gitRoot: root, actor: 'cli' });
  try {
    await new CommitChecker(root).assertCommit(body.repo, body.sha);
    return await work(store);
  } catch (err) {
    if (!(err instanceof GitHostError)) throw err;
    if (err.code === 'INVALID_INPUT') throw new UsageError(err.message);
    ctx.io.stderr.write(
      `railyard status ${sub}: ${err.code === 'REVISION_NOT_FOUND' ? `no commit ${body.sha} in ${formatRepo(body.repo)}` : err.message}\n`,
    );
    return null;
  } finally {
    await store.close();
    await eventStore.close();
  }
};

const print = (ctx: CliContext, answer: unknown): number => {
  if (answer === null) return 1;
  ctx.io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  return 0;
};

/**
 * `railyard status set`: what an outside CI calls to report on a commit. Writes through the same
 * store as the local CI and the intake endpoint, so the engine hears of it either way.
 */
export const setCommand = async (flags: StatusFlags, ctx: CliContext): Promise<number> => {
  required(flags, ['repo', 'sha', 'context', 'state']);
  const repo = repoOption(flags.repo);
  const remote = remoteOf(flags, ctx);
  const body: SetBody = validated(setCommitStatusRequest, {
    repo,
    sha: flags.sha,
    context: flags.context,
    state: flags.state,
    ...(flags.targetUrl !== undefined ? { targetUrl: flags.targetUrl } : {}),
    ...(flags.description !== undefined ? { description: flags.description } : {}),
  });
  if (remote) return print(ctx, await postJson(remote, '/setCommitStatus', body));
  const { context, state, targetUrl, description } = body;
  const answer = await locally(ctx, 'set', body, async (store) => ({
    repo,
    sha: body.sha,
    status: await store.set(repo, body.sha, {
      context,
      state,
      ...(targetUrl ? { targetUrl } : {}),
      ...(description !== undefined ? { description } : {}),
      // Whoever can write the data dir's event store is the server's own user: recorded as the CLI.
      reporter: CLI_REPORTER,
    }),
  }));
  return print(ctx, answer);
};

/** `railyard status list`: a commit's statuses. */
export const listCommand = async (flags: StatusFlags, ctx: CliContext): Promise<number> => {
  required(flags, ['repo', 'sha']);
  const repo = repoOption(flags.repo);
  const remote = remoteOf(flags, ctx);
  const body: ListBody = validated(getCommitStatusesRequest, { repo, sha: flags.sha });
  if (remote) return print(ctx, await postJson(remote, '/getCommitStatuses', body));
  return print(
    ctx,
    await locally(ctx, 'list', body, async (store) => ({ repo, sha: body.sha, statuses: await store.list(repo, body.sha) })),
  );
};
