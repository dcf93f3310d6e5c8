import type { RepoRef } from './ids';

/**
 * The rules every identifier meets wherever it enters: the API's schemas explain them to clients,
 * and the git host asserts them again where a name becomes a path or a git argument. Each rule has
 * a `…Problem` form that says what is wrong (for a 400 naming the field) and an `is…` form.
 */

/** Longest host, owner or repository name segment. */
export const MAX_REPO_SEGMENT_LENGTH = 100;
/** Longest branch name, in UTF-8 bytes: a ref is a file under refs/heads, and a file name holds 255 bytes. */
export const MAX_BRANCH_NAME_BYTES = 255;

// A leading `.` or `-` is refused, which rules out `.`, `..`, hidden directories and anything git
// could read as an option; `/`, `\`, NUL and spaces cannot appear at all.
const SEGMENT_START = /^[A-Za-z0-9_]/;
const SEGMENT_CHARS = /^[A-Za-z0-9._-]*$/;

/** What is wrong with one segment of host/owner/name, or undefined when it is a name the host can serve. */
export const repoSegmentProblem = (s: string): string | undefined => {
  if (s.length === 0) return 'must not be empty';
  if (s.length > MAX_REPO_SEGMENT_LENGTH) return `must be at most ${MAX_REPO_SEGMENT_LENGTH} characters`;
  if (!SEGMENT_START.test(s)) return 'must start with a letter, a digit or _';
  if (!SEGMENT_CHARS.test(s)) return 'may hold only letters, digits, ., _ and -';
  return undefined;
};

export const isValidRepoSegment = (s: unknown): s is string => typeof s === 'string' && repoSegmentProblem(s) === undefined;

/** Each part of the repository that is not a valid segment, with what is wrong with it; empty when all are valid. */
export const repoRefProblems = (repo: RepoRef): { part: keyof RepoRef; problem: string }[] =>
  (['host', 'owner', 'name'] as const).flatMap((part) => {
    const problem = repoSegmentProblem(repo[part]);
    return problem ? [{ part, problem }] : [];
  });

export const isValidRepoRef = (repo: RepoRef): boolean =>
  isValidRepoSegment(repo.host) && isValidRepoSegment(repo.owner) && isValidRepoSegment(repo.name);

// git check-ref-format's forbidden characters: controls, space, ~ ^ : ? * [ and backslash.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_REF = /[\x00-\x20\x7f~^:?*[\\]/;
const utf8 = new TextEncoder();
// A lone UTF-16 surrogate has no UTF-8 form, so it could not be a file name or a git argument.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What is wrong with a branch name, or undefined when `git check-ref-format --branch` would take
 * it. A little stricter than git (no `HEAD`, no leading `-`), because the name becomes both a path
 * under refs/heads and an argument on git's command line. `/` and `@` are allowed (`release/2.0@rc`).
 */
export const branchNameProblem = (name: string): string | undefined => {
  if (name.length === 0) return 'must not be empty';
  if (LONE_SURROGATE.test(name)) return 'must be valid Unicode text';
  if (utf8.encode(name).length > MAX_BRANCH_NAME_BYTES) return `must be at most ${MAX_BRANCH_NAME_BYTES} bytes of UTF-8`;
  if (name === 'HEAD' || name === '@') return `must not be ${name}`;
  if (name.startsWith('-')) return 'must not start with -';
  if (FORBIDDEN_IN_REF.test(name)) return 'must not hold control characters, spaces or any of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'must not hold ..';
  if (name.includes('@{')) return 'must not hold @{';
  if (name.endsWith('.')) return 'must not end with .';
  for (const part of name.split('/')) {
    if (part.length === 0) return 'must not start or end with /, nor hold //';
    if (part.startsWith('.')) return 'no /-separated part may start with .';
    if (part.endsWith('.lock')) return 'no /-separated part may end with .lock';
  }
  return undefined;
};

export const isValidBranchName = (name: unknown): name is string => typeof name === 'string' && branchNameProblem(name) === undefined;

export const isValidPrNumber = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 1;

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** A full commit id as git prints it: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits. */
export const isObjectId = (s: string): boolean => OBJECT_ID.test(s);

/** `host/owner/name` as typed on a command line or a query string, or null when it is not three valid segments. */
export const parseRepoSpec = (spec: string): RepoRef | null => {
  const parts = spec.split('/');
  if (parts.length !== 3) return null;
  const [host, owner, name] = parts as [string, string, string];
  const repo = { host, owner, name };
  return isValidRepoRef(repo) ? repo : null;
};

export const formatRepo = (repo: RepoRef): string => `${repo.host}/${repo.owner}/${repo.name}`;

/** The same repository: every part equal, as queue ids compare them. */
export const sameRepo = (a: RepoRef, b: RepoRef): boolean => a.host === b.host && a.owner === b.owner && a.name === b.name;
