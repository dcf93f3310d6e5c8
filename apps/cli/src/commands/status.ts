import { parseSubcommand, UsageError } from '../args';
import { CommitChecker, getCommitStatusesRequest, setCommitStatusRequest } from '@railyard/ci';
import { formatRepo, gitRootFromEnv, GitHostError, LocalCommitStatusStore, parseRepoSpec } from '@railyard/githost';
import type { z } from 'zod';
import type { CommandIo } from './pr';

const USAGE = `usage: railyard status <subcommand> …   (commit statuses on the local git host, as a CI reports them)
  status set  --repo HOST/OWNER/NAME --sha SHA --context NAME --state pending|success|failure|error [--url URL] [--description TEXT]
  status list --repo HOST/OWNER/NAME --sha SHA
Without --api the status is written straight into the repository under RAILYARD_GIT_ROOT (the server
may be down). With --api URL (and --token T, or RAILYARD_API_TOKEN) it goes through the HTTP API.
Prints JSON. Exit codes: 0 done, 1 refused (unknown repository or commit, API error), 2 bad usage.`;

const OPTIONS = {
  repo: { type: 'string' },
  sha: { type: 'string' },
  context: { type: 'string' },
  state: { type: 'string' },
  url: { type: 'string' },
  description: { type: 'string' },
  api: { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = Exclude<keyof typeof OPTIONS, 'help'>;

const ALLOWED: Record<string, readonly OptionName[]> = {
  set: ['repo', 'sha', 'context', 'state', 'url', 'description', 'api', 'token'],
  list: ['repo', 'sha', 'api', 'token'],
};

class Refused extends Error {}

type Parsed =
  { sub: 'set'; body: z.infer<typeof setCommitStatusRequest> } | { sub: 'list'; body: z.infer<typeof getCommitStatusesRequest> };

interface Remote {
  api: string;
  token: string;
}

/** The same schema as the HTTP endpoint, so a CLI call and an API call accept and refuse the same input. */
const validated = <T extends z.ZodType>(schema: T, input: unknown): z.infer<T> => {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const option = (path: PropertyKey[]): string => (path[0] === 'targetUrl' ? 'url' : String(path[0] ?? 'input'));
  throw new UsageError(result.error.issues.map((i) => `--${option(i.path)}: ${i.message}`).join('; '));
};

const parse = (argv: string[], env: NodeJS.ProcessEnv): { parsed: Parsed; remote?: Remote } | 'help' => {
  const args = parseSubcommand('status', argv, OPTIONS, ALLOWED);
  if (args === 'help') return 'help';
  const { sub } = args;
  const values = args.values as Partial<Record<OptionName | 'help', string>>;
  for (const name of sub === 'set' ? (['repo', 'sha', 'context', 'state'] as const) : (['repo', 'sha'] as const)) {
    if (values[name] === undefined) throw new UsageError(`--${name} is required`);
  }
  const repo = parseRepoSpec(values.repo ?? '');
  if (repo === null)
    throw new UsageError(`--repo must be HOST/OWNER/NAME of letters, digits, '.', '_' or '-', got ${JSON.stringify(values.repo)}`);
  const token = values.token ?? env.RAILYARD_API_TOKEN;
  if (values.api !== undefined && !token) throw new UsageError('--api needs --token (or RAILYARD_API_TOKEN)');
  if (values.token !== undefined && values.api === undefined) throw new UsageError('--token is only for --api');
  if (values.api !== undefined && !/^https?:\/\/\S+$/i.test(values.api))
    throw new UsageError('--api must be the server URL, e.g. http://127.0.0.1:8080');
  const remote = values.api !== undefined ? { api: values.api.replace(/\/+$/, ''), token: token as string } : undefined;
  if (sub === 'list')
    return { parsed: { sub, body: validated(getCommitStatusesRequest, { repo, sha: values.sha }) }, ...(remote ? { remote } : {}) };
  const input = {
    repo,
    sha: values.sha,
    context: values.context,
    state: values.state,
    ...(values.url !== undefined ? { targetUrl: values.url } : {}),
    ...(values.description !== undefined ? { description: values.description } : {}),
  };
  return { parsed: { sub: 'set', body: validated(setCommitStatusRequest, input) }, ...(remote ? { remote } : {}) };
};

const local = async (parsed: Parsed, env: NodeJS.ProcessEnv): Promise<unknown> => {
  const root = gitRootFromEnv(env);
  const { repo, sha } = parsed.body;
  await new CommitChecker(root).assertCommit(repo, sha);
  const store = new LocalCommitStatusStore({ root });
  try {
    if (parsed.sub === 'list') return { repo, sha, statuses: await store.list(repo, sha) };
    const { context, state, targetUrl, description } = parsed.body;
    const status = await store.set(repo, sha, {
      context,
      state,
      ...(targetUrl ? { targetUrl } : {}),
      ...(description !== undefined ? { description } : {}),
    });
    return { repo, sha, status };
  } finally {
    await store.close();
  }
};

const remoteCall = async (parsed: Parsed, remote: Remote): Promise<unknown> => {
  const path = parsed.sub === 'set' ? '/v1/setCommitStatus' : '/v1/getCommitStatuses';
  let res: Response;
  try {
    res = await fetch(`${remote.api}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': remote.token },
      body: JSON.stringify(parsed.body),
    });
  } catch (err) {
    throw new Refused(`could not reach ${remote.api}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: shown as it came.
  }
  if (!res.ok) {
    const error = (body as { error?: { code?: string; message?: string } })?.error;
    throw new Refused(`${res.status} ${error?.code ?? ''}: ${error?.message ?? text}`.trim());
  }
  return body;
};

/**
 * `railyard status …`: what an outside CI calls to report on a commit. Writes through the same store
 * as the local CI and the intake endpoint, so the engine hears of it either way.
 */
export const statusCommand = async (
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> => {
  let request: { parsed: Parsed; remote?: Remote } | 'help';
  try {
    request = parse(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`railyard status: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  if (request === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { parsed, remote } = request;
  try {
    const answer = remote ? await remoteCall(parsed, remote) : await local(parsed, env);
    io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof Refused) {
      io.stderr.write(`railyard status ${parsed.sub}: ${err.message}\n`);
      return 1;
    }
    if (!(err instanceof GitHostError)) throw err;
    io.stderr.write(
      `railyard status ${parsed.sub}: ${err.code === 'REVISION_NOT_FOUND' ? `no commit ${parsed.body.sha} in ${formatRepo(parsed.body.repo)}` : err.message}\n`,
    );
    return err.code === 'INVALID_INPUT' ? 2 : 1;
  }
};
