import { UsageError } from '../args';
import type { RepoRef } from '@railyard/domain';
import { parseRepoSpec } from '@railyard/githost';

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Bad arguments: exit 2 with the usage text. */
export { UsageError } from '../args';

/** The server refused (4xx) or could not be reached: exit 1 with its code and message. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiTarget {
  url: string;
  token: string;
}

export const API_OPTIONS = {
  api: { type: 'string' },
  token: { type: 'string' },
} as const;

export const API_USAGE = `  --api URL     the Railyard API (default RAILYARD_API_URL)
  --token T     an API token (default RAILYARD_API_TOKEN)`;

export const apiTargetOf = (values: { api?: string; token?: string }, env: NodeJS.ProcessEnv): ApiTarget => {
  const url = values.api ?? env.RAILYARD_API_URL;
  if (!url) throw new UsageError('--api URL (or RAILYARD_API_URL) is required');
  if (!/^https?:\/\/\S+$/.test(url)) throw new UsageError(`--api must be an http(s) URL, got ${JSON.stringify(url)}`);
  const token = values.token ?? env.RAILYARD_API_TOKEN;
  if (!token) throw new UsageError('--token T (or RAILYARD_API_TOKEN) is required');
  return { url: url.replace(/\/+$/, ''), token };
};

export const repoOption = (value: string | undefined): RepoRef => {
  if (value === undefined) throw new UsageError('--repo is required');
  const repo = parseRepoSpec(value);
  if (repo === null) throw new UsageError(`--repo must be HOST/OWNER/NAME, got ${JSON.stringify(value)}`);
  return repo;
};

export const positiveInt = (name: string, value: string | undefined, max = 4_294_967_295): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^[1-9][0-9]*$/.test(value) || n > max) throw new UsageError(`--${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
};

/** One JSON POST to /v1<path>; a non-2xx answer becomes an ApiRefusal carrying the server's error code. */
export const postJson = async <T>(target: ApiTarget, path: string, body: unknown): Promise<T> => {
  let res: Response;
  try {
    res = await fetch(`${target.url}/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': target.token },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiRefusal(0, 'API_UNREACHABLE', `cannot reach ${target.url}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = (await res.json().catch(() => null)) as (T & { error?: { code?: string; message?: string } }) | null;
  if (!res.ok || parsed === null) {
    throw new ApiRefusal(
      res.status,
      parsed?.error?.code ?? `HTTP_${res.status}`,
      parsed?.error?.message ?? `the API answered ${res.status} without a JSON body`,
    );
  }
  return parsed;
};

/** Every page of a listing, following next_page_token. */
export const allPages = async <T>(fetchPage: (token: string) => Promise<{ items: T[]; next: string }>): Promise<T[]> => {
  const items: T[] = [];
  let token = '';
  do {
    const page = await fetchPage(token);
    items.push(...page.items);
    token = page.next;
  } while (token !== '');
  return items;
};

/** Runs a command body with the shared exit-code rules: 0 done, 1 refused, 2 bad usage. */
export const runCommand = async (io: CommandIo, prefix: string, usage: string, body: () => Promise<number>): Promise<number> => {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${prefix}: ${err.message}\n${usage}\n`);
      return 2;
    }
    if (err instanceof ApiRefusal) {
      io.stderr.write(`${prefix}: ${err.code}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
};
