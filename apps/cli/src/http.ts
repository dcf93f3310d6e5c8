import type { CliSettings } from './config';
import { UsageError } from './context';
import { urlOption } from './identifiers';

/** The server refused (4xx/5xx) or could not be reached (status 0): exit 1 with its code and message. */
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

export interface RemoteFlags {
  url?: string;
  /** The older spelling of --url, kept for scripts written against the first CLI. */
  api?: string;
  token?: string;
}

/** The server and token from the flags, else RAILYARD_URL and RAILYARD_TOKEN. */
export const apiTargetOf = (flags: RemoteFlags, settings: CliSettings): ApiTarget => {
  if (flags.url !== undefined && flags.api !== undefined && flags.url !== flags.api) throw new UsageError('give --url or --api, not both');
  const url = flags.url ?? flags.api ?? settings.url;
  if (!url) throw new UsageError('the server is not set: give --url URL or set RAILYARD_URL');
  const token = flags.token ?? settings.token;
  if (!token) throw new UsageError('no API token: give --token T or set RAILYARD_TOKEN');
  return { url: urlOption('--url', url), token };
};

/** True when the command should go through the API rather than the local stores: --url/--api was given. */
export const wantsApi = (flags: RemoteFlags): boolean => flags.url !== undefined || flags.api !== undefined;

type ErrorBody = { error?: { code?: string; message?: string } };

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
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ApiRefusal(0, 'API_UNREACHABLE', `could not reach ${target.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page, say): reported below with the status alone.
  }
  if (!res.ok || parsed === null || typeof parsed !== 'object') {
    const error = (parsed as ErrorBody | null)?.error;
    throw new ApiRefusal(
      res.status,
      error?.code ?? `HTTP_${res.status}`,
      error?.message ?? `the server answered ${res.status} without a JSON body`,
    );
  }
  return parsed as T;
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
