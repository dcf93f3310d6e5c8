import { UsageError } from '../context';
import { durationOption } from '../identifiers';
import type { FollowOptions } from './follow';

export interface WaitFlags {
  wait?: boolean;
  timeout?: string;
  pollInterval?: string;
  json?: boolean;
}

/** --wait's options, or undefined without --wait (then --timeout is a mistake worth saying). */
export const followOptionsOf = (flags: WaitFlags): FollowOptions | undefined => {
  const timeoutMs = durationOption('--timeout', flags.timeout);
  const intervalMs = durationOption('--poll-interval', flags.pollInterval) ?? 2000;
  if (!flags.wait) {
    if (flags.timeout !== undefined) throw new UsageError('--timeout only applies with --wait');
    return undefined;
  }
  return { json: flags.json ?? false, intervalMs, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
};
