import type { Caller } from '../auth';
import type { FakeCore } from '../core';
import type { FakeRepo, FakeUser } from '../model';
import type { OperationId, RestOperation } from '../operations';

export interface RouteContext {
  core: FakeCore;
  op: RestOperation;
  /** Path parameters, decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The full URL the request was made to. */
  url: string;
  /** The parsed JSON body (already checked against the operation's schema). */
  body: Record<string, unknown>;
  caller: Caller;
  /** The repository named in the path, when the operation has one (visible to the caller). */
  repo: FakeRepo | null;
  /** The account the caller acts as: the App's bot. */
  actor: FakeUser;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (ctx: RouteContext) => Promise<Reply>;

export type Handlers = Partial<Record<OperationId, Handler>>;

/** The repository of an operation whose path names one (the router resolved it before calling). */
export const repoOf = (ctx: RouteContext): FakeRepo => {
  if (ctx.repo === null) throw new Error(`${ctx.op.id} has no repository in its path`);
  return ctx.repo;
};

export const ok = (body: unknown, status = 200): Reply => ({ status, body });

const PER_PAGE_MAX = 100;

/**
 * One page of `items` as GitHub pages lists: `per_page` (default 30, at most 100) and `page`, with a
 * Link header naming the next and last pages.
 */
export const paginate = <T>(ctx: RouteContext, items: T[]): { page: T[]; headers: Record<string, string> } => {
  const perPage = Math.min(PER_PAGE_MAX, Math.max(1, Number(ctx.query.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(ctx.query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number, rel: string) => {
    const url = new URL(ctx.url);
    url.searchParams.set('per_page', String(perPage));
    url.searchParams.set('page', String(n));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links = [
    ...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []),
    ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : []),
  ];
  return { page: items.slice((page - 1) * perPage, page * perPage), headers: links.length > 0 ? { link: links.join(', ') } : {} };
};
