import { createHash } from 'node:crypto';
import type { Reply } from './routes/types';

/**
 * Conditional requests as GitHub answers them: a successful GET carries an `etag` (a hash of what it
 * says), and a GET whose `if-none-match` names the current one is answered 304 with no body, which
 * GitHub does not count against the rate limit (the caller refunds it).
 */
export const conditional = (method: string, reply: Reply, ifNoneMatch: string | undefined): { reply: Reply; notModified: boolean } => {
  if (method !== 'GET' || reply.status !== 200 || reply.body === undefined) return { reply, notModified: false };
  const etag = `W/"${createHash('sha256').update(JSON.stringify(reply.body)).digest('hex').slice(0, 40)}"`;
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim() === etag))
    return { reply: { status: 304, headers: { ...reply.headers, etag } }, notModified: true };
  return { reply: { ...reply, headers: { ...reply.headers, etag } }, notModified: false };
};
