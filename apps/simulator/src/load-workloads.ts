import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseWorkload, WorkloadError, type Workload } from './workload';

const WORKLOAD_FILE = /\.(json|ya?ml)$/i;

/** The workload files a path names: the file itself, or every workload file in the folder, by name. */
export const workloadFiles = async (target: string): Promise<string[]> => {
  const info = await stat(target).catch(() => null);
  if (!info) throw new WorkloadError(`${target}: no such file or folder`);
  if (!info.isDirectory()) return [target];
  const names = (await readdir(target)).filter((n) => WORKLOAD_FILE.test(n)).sort();
  return names.map((n) => path.join(target, n));
};

export const loadWorkload = async (file: string): Promise<Workload> => {
  const text = await readFile(file, 'utf8');
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new WorkloadError(
      `${file}: not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return parseWorkload(raw, file);
};
