import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';

/** Per check; more is a runaway glob, not a test report. */
export const MAX_REPORT_FILES = 200;
export const MAX_REPORT_BYTES = 20 * 1024 * 1024;

/**
 * A report pattern as a path matcher: `**` any number of directories, `*` any characters but `/`,
 * `?` one such character. Dot files match too: a pattern names report files, not hidden ones.
 */
export const reportMatcher = (pattern: string): ((file: string) => boolean) => picomatch(pattern, { dot: true });

/** The directory a pattern's matches must be under: the part before its first wildcard. */
const staticPrefix = (pattern: string): string => {
  const { base, isGlob } = picomatch.scan(pattern);
  const dir = isGlob ? base : path.posix.dirname(base);
  return dir === '.' ? '' : dir;
};

/**
 * The files under `root` matching any pattern, read into memory, in path order. Only the part of the
 * tree a pattern can match is walked; `.git` never is; symbolic links are not followed.
 */
export const collectReports = async (root: string, patterns: readonly string[]): Promise<{ files: Buffer[]; paths: string[] }> => {
  const matchers = patterns.map(reportMatcher);
  const found = new Set<string>();
  const walk = async (rel: string): Promise<void> => {
    const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (found.size >= MAX_REPORT_FILES) return;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory() && entry.name !== '.git') await walk(child);
      else if (entry.isFile() && matchers.some((matches) => matches(child))) found.add(child);
    }
  };
  for (const prefix of new Set(patterns.map(staticPrefix))) await walk(prefix);
  const paths = [...found].sort();
  const files: Buffer[] = [];
  for (const rel of paths) {
    const stat = await fs.stat(path.join(root, rel));
    if (stat.size <= MAX_REPORT_BYTES) files.push(await fs.readFile(path.join(root, rel)));
  }
  return { files, paths };
};
