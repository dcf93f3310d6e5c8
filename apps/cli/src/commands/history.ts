import { UsageError } from '../args';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { historyEntryOf, type HistoryEntry, type HistoryPage } from '@railyard/api';
import { queueIdOf, queueStreamOf, type RepoRef } from '@railyard/domain';
import { parseRepoSpec } from '@railyard/githost';
import { loadConfig, openEventStore } from '@railyard/runtime';

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export { UsageError } from '../args';
/** The queue or the store is not there: exit 1 with the message, no usage text. */
export class NotFoundError extends Error {}

/** Where the events come from: the event store in the data dir, or a Railyard API. */
export interface HistorySource {
  repo: RepoRef;
  branch: string;
  api?: { url: string; token: string };
}

export const SOURCE_OPTIONS = {
  repo: { type: 'string' },
  branch: { type: 'string' },
  api: { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const SOURCE_USAGE = `  --repo HOST/OWNER/NAME --branch BRANCH   the queue
  --api URL [--token T]   read through a Railyard API (token: --token or RAILYARD_API_TOKEN, read scope);
                          without --api the event store of RAILYARD_DATA_DIR is read directly`;

export const sourceOf = (
  values: { repo?: string; branch?: string; api?: string; token?: string },
  env: NodeJS.ProcessEnv,
): HistorySource => {
  if (values.repo === undefined) throw new UsageError('--repo is required');
  if (values.branch === undefined || values.branch === '') throw new UsageError('--branch is required');
  const repo = parseRepoSpec(values.repo);
  if (repo === null) throw new UsageError(`--repo must be HOST/OWNER/NAME, got ${JSON.stringify(values.repo)}`);
  if (values.api === undefined) {
    if (values.token !== undefined) throw new UsageError('--token needs --api');
    return { repo, branch: values.branch };
  }
  const token = values.token ?? env.RAILYARD_API_TOKEN;
  if (!token) throw new UsageError('--api needs a token: --token T or RAILYARD_API_TOKEN');
  return { repo, branch: values.branch, api: { url: values.api.replace(/\/+$/, ''), token } };
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
    throw new NotFoundError(`no event store at ${config.eventStore.file} (set RAILYARD_DATA_DIR)`);
  const store = await openEventStore(config);
  try {
    return (await store.readStream(queueStreamOf(queueIdOf(source.repo, source.branch)))).map(historyEntryOf);
  } finally {
    await store.close();
  }
};

const readFromApi = async (
  api: { url: string; token: string },
  source: HistorySource,
  range: { since?: string; until?: string },
): Promise<HistoryEntry[]> => {
  const entries: HistoryEntry[] = [];
  let pageToken = '';
  do {
    const res = await fetch(`${api.url}/v1/getQueueHistory`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': api.token },
      body: JSON.stringify({
        repo: source.repo,
        targetBranch: source.branch,
        ...range,
        page_query: { page_size: 1000, page_token: pageToken },
      }),
    });
    const body = (await res.json().catch(() => null)) as (HistoryPage & { error?: { code: string; message: string } }) | null;
    if (res.status === 404) throw new NotFoundError(body?.error?.message ?? 'no such queue');
    if (!res.ok || !body)
      throw new Error(
        `getQueueHistory answered ${res.status}: ${body?.error ? `${body.error.code}: ${body.error.message}` : 'no JSON body'}`,
      );
    entries.push(...body.events);
    pageToken = body.page.next_page_token;
  } while (pageToken);
  return entries;
};

/** The queue's events, oldest first; `since` ≤ time < `until` when given. Throws NotFoundError when the queue never existed. */
export const loadHistory = async (
  source: HistorySource,
  env: NodeJS.ProcessEnv,
  range: { since?: string; until?: string } = {},
): Promise<HistoryEntry[]> => {
  if (source.api) return readFromApi(source.api, source, range);
  const all = await readFromStore(source, env);
  if (all.length === 0)
    throw new NotFoundError(`no queue has ever existed for ${source.repo.host}/${source.repo.owner}/${source.repo.name} ${source.branch}`);
  const since = range.since ? Date.parse(range.since) : -Infinity;
  const until = range.until ? Date.parse(range.until) : Infinity;
  return all.filter((e) => Date.parse(e.time) >= since && Date.parse(e.time) < until);
};

const USAGE = `usage: railyard history --repo HOST/OWNER/NAME --branch BRANCH [--since ISO] [--until ISO] [--json] [--api URL [--token T]]
Prints the queue's audit trail, oldest first: time, revision, event, PR, actor, reason.
${SOURCE_USAGE}
  --since/--until         only events with since <= time < until
  --json                  one JSON object per line (every field, the event data included)
Exit codes: 0 printed, 1 no such queue or store, 2 bad usage.`;

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
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> => {
  let source: HistorySource;
  let range: { since?: string; until?: string };
  let json: boolean;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...SOURCE_OPTIONS, since: { type: 'string' }, until: { type: 'string' }, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    source = sourceOf(values, env);
    range = {
      ...(values.since ? { since: isoTime('since', values.since) } : {}),
      ...(values.until ? { until: isoTime('until', values.until) } : {}),
    };
    json = values.json ?? false;
  } catch (err) {
    if (!(err instanceof UsageError) && !(err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw err;
    io.stderr.write(`railyard history: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const entries = await loadHistory(source, env, range);
    io.stdout.write(entries.map((e) => (json ? JSON.stringify(e) : line(e))).join('\n') + (entries.length > 0 ? '\n' : ''));
    return 0;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    io.stderr.write(`railyard history: ${err.message}\n`);
    return 1;
  }
};
