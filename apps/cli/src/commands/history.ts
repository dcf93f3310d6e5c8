import { existsSync } from 'node:fs';
import { formatRepo, queueIdOf, queueStreamOf, type RepoRef } from '@railyard/domain';
import { historyEntryOf, loadConfig, openEventStore, type HistoryEntry, type HistoryPage } from '../backends/event-store';
import { CommandFailed, UsageError, type CliContext } from '../context';
import { apiTargetOf, postJson, wantsApi, type ApiTarget } from '../http';
import { branchOption, repoOption } from '../identifiers';

export interface SourceFlags {
  repo?: string;
  branch?: string;
  /** The server; --api is its older spelling. Without either, the data dir's event store. */
  url?: string;
  api?: string;
  token?: string;
}

/** Where the events come from: the event store in the data dir, or a Railyard API. */
export interface HistorySource {
  repo: RepoRef;
  branch: string;
  api?: ApiTarget;
}

export const sourceOf = (flags: SourceFlags, ctx: CliContext): HistorySource => {
  const repo = repoOption(flags.repo);
  const branch = branchOption(flags.branch);
  if (!wantsApi(flags)) {
    if (flags.token !== undefined) throw new UsageError('--token needs --url');
    return { repo, branch };
  }
  return { repo, branch, api: apiTargetOf(flags, ctx.settings) };
};

export const isoTime = (name: string, value: string): string => {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) || Number.isNaN(Date.parse(value)))
    throw new UsageError(`--${name} must be an ISO 8601 time with a zone, e.g. 2026-03-01T09:30:00Z; got ${JSON.stringify(value)}`);
  return value;
};

const readFromStore = async (source: HistorySource, env: NodeJS.ProcessEnv): Promise<HistoryEntry[]> => {
  const config = loadConfig(env);
  // Opening SQLite creates a missing file; a mistyped data dir must say so instead of showing an empty store.
  if (config.eventStore.kind === 'sqlite' && !existsSync(config.eventStore.file))
    throw new CommandFailed(`no event store at ${config.eventStore.file} (set RAILYARD_DATA_DIR)`);
  const store = await openEventStore(config);
  try {
    return (await store.readStream(queueStreamOf(queueIdOf(source.repo, source.branch)))).map(historyEntryOf);
  } finally {
    await store.close();
  }
};

const readFromApi = async (api: ApiTarget, source: HistorySource, range: { since?: string; until?: string }): Promise<HistoryEntry[]> => {
  const entries: HistoryEntry[] = [];
  let pageToken = '';
  do {
    const body = await postJson<HistoryPage>(api, '/getQueueHistory', {
      repo: source.repo,
      targetBranch: source.branch,
      ...range,
      page_query: { page_size: 1000, page_token: pageToken },
    });
    entries.push(...body.events);
    pageToken = body.page.next_page_token;
  } while (pageToken);
  return entries;
};

/** The queue's events, oldest first; `since` ≤ time < `until` when given. Fails (exit 1) when the queue never existed. */
export const loadHistory = async (
  source: HistorySource,
  env: NodeJS.ProcessEnv,
  range: { since?: string; until?: string } = {},
): Promise<HistoryEntry[]> => {
  if (source.api) return readFromApi(source.api, source, range);
  const all = await readFromStore(source, env);
  if (all.length === 0) throw new CommandFailed(`no queue has ever existed for ${formatRepo(source.repo)} ${source.branch}`);
  const since = range.since ? Date.parse(range.since) : -Infinity;
  const until = range.until ? Date.parse(range.until) : Infinity;
  return all.filter((e) => Date.parse(e.time) >= since && Date.parse(e.time) < until);
};

const line = (e: HistoryEntry): string =>
  [
    e.time,
    `r${e.revision}`,
    e.type,
    e.prNumber === undefined ? '' : `#${e.prNumber}`,
    `actor=${e.actor}`,
    e.reason ? `reason=${e.reason}` : '',
  ]
    .filter(Boolean)
    .join('  ');

/** `railyard history …`: the audit trail of one queue, also after the queue was deleted. */
export const historyCommand = async (
  flags: SourceFlags & { since?: string; until?: string; json?: boolean },
  ctx: CliContext,
): Promise<number> => {
  const source = sourceOf(flags, ctx);
  const range = {
    ...(flags.since ? { since: isoTime('since', flags.since) } : {}),
    ...(flags.until ? { until: isoTime('until', flags.until) } : {}),
  };
  const entries = await loadHistory(source, ctx.env, range);
  ctx.io.stdout.write(entries.map((e) => (flags.json ? JSON.stringify(e) : line(e))).join('\n') + (entries.length > 0 ? '\n' : ''));
  return 0;
};
