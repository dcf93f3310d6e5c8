import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';

// One path segment of host/owner/name. A leading `.` or `-` is refused, which rules out `.`, `..`,
// hidden directories and anything git could read as an option; `/`, `\` and NUL cannot appear at all.
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;

export const isValidRepoSegment = (s: unknown): s is string => typeof s === 'string' && SEGMENT.test(s);

export const isValidRepoRef = (repo: RepoRef): boolean =>
  isValidRepoSegment(repo.host) && isValidRepoSegment(repo.owner) && isValidRepoSegment(repo.name);

/** The bare repository's directory under `root`, or null when a part of the name could leave the root. */
export const repoDirOf = (root: string, repo: RepoRef): string | null =>
  isValidRepoRef(repo) ? path.join(root, repo.host, repo.owner, `${repo.name}.git`) : null;

export const isValidPrNumber = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 1;

// git check-ref-format's rules, a little stricter (no `HEAD`, no leading `-`), because a branch name
// becomes both a path under refs/heads and an argument on git's command line.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_REF = /[\x00-\x20\x7f~^:?*[\\]/;

export const isValidBranchName = (name: unknown): name is string => {
  if (typeof name !== 'string' || name.length === 0 || name.length > 255) return false;
  if (name === 'HEAD' || name === '@' || name.startsWith('-')) return false;
  if (FORBIDDEN_IN_REF.test(name) || name.includes('..') || name.includes('@{')) return false;
  if (name.endsWith('.')) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
};

/** `host/owner/name` as typed on a command line, or null when it is not three valid segments. */
export const parseRepoSpec = (spec: string): RepoRef | null => {
  const parts = spec.split('/');
  if (parts.length !== 3) return null;
  const [host, owner, name] = parts as [string, string, string];
  const repo = { host, owner, name };
  return isValidRepoRef(repo) ? repo : null;
};

export const formatRepo = (repo: RepoRef): string => `${repo.host}/${repo.owner}/${repo.name}`;

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
export const isObjectId = (s: string): boolean => OBJECT_ID.test(s);
