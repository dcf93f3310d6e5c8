import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Per check; more is a runaway glob, not a test report. */
export const MAX_REPORT_FILES = 200;
export const MAX_REPORT_BYTES = 20 * 1024 * 1024;

/** `**` any number of directories, `*` any characters but `/`, `?` one such character. */
export const globToRegExp = (pattern: string): RegExp => {
  let re = '';
  const parts = pattern.split('/');
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    if (part === '**') {
      re += last ? '.*' : '(?:[^/]+/)*';
      return;
    }
    re += part
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]');
    if (!last) re += '/';
  });
  return new RegExp(`^${re}$`);
};

/** The directory a pattern's matches must be under: its segments before the first wildcard. */
const staticPrefix = (pattern: string): string => {
  const fixed: string[] = [];
  for (const part of pattern.split('/').slice(0, -1)) {
    if (/[*?]/.test(part)) break;
    fixed.push(part);
  }
  return fixed.join('/');
};

/**
 * The files under `root` matching any pattern, read into memory, in path order. Only the part of the
 * tree a pattern can match is walked; `.git` never is; symbolic links are not followed.
 */
export const collectReports = async (root: string, patterns: readonly string[]): Promise<{ files: Buffer[]; paths: string[] }> => {
  const matchers = patterns.map(globToRegExp);
  const found = new Set<string>();
  const walk = async (rel: string): Promise<void> => {
    const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (found.size >= MAX_REPORT_FILES) return;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory() && entry.name !== '.git') await walk(child);
      else if (entry.isFile() && matchers.some((m) => m.test(child))) found.add(child);
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
