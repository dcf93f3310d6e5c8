import { parse } from 'yaml';
import { runGit } from '@railyard/githost';

export interface RepoCiConfig {
  /** Check name → shell command, from `.railyard.yml` `ci:`. */
  checks: Record<string, string>;
  /** `merge.required_statuses` of `.railyard.yml`, else of `.trunk/trunk.yaml`; undefined when neither sets it. */
  requiredStatuses?: string[];
}

export class RepoConfigError extends Error {}

const fileAt = async (gitDir: string, sha: string, file: string): Promise<string | null> => {
  const { code, stdout } = await runGit(gitDir, ['cat-file', 'blob', `${sha}:${file}`], { okCodes: [128] });
  return code === 0 ? stdout : null;
};

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const requiredOf = (doc: unknown, file: string): string[] | undefined => {
  const list = asRecord(asRecord(doc)?.merge)?.required_statuses;
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' || x.trim() === ''))
    throw new RepoConfigError(`${file}: merge.required_statuses must be a list of status names`);
  return list as string[];
};

const parseYaml = (text: string, file: string): unknown => {
  try {
    return parse(text);
  } catch (err) {
    throw new RepoConfigError(`${file} is not valid YAML: ${(err as Error).message}`);
  }
};

/** Reads the CI and merge configuration at a commit; throws RepoConfigError when a file is malformed. */
export const readRepoCiConfig = async (gitDir: string, sha: string): Promise<RepoCiConfig> => {
  const own = await fileAt(gitDir, sha, '.railyard.yml');
  const ownDoc = own === null ? undefined : parseYaml(own, '.railyard.yml');
  const ci = asRecord(asRecord(ownDoc)?.ci) ?? {};
  const checks: Record<string, string> = {};
  for (const [name, command] of Object.entries(ci)) {
    if (typeof command !== 'string') throw new RepoConfigError(`.railyard.yml: ci.${name} must be a shell command`);
    checks[name] = command;
  }
  let requiredStatuses = requiredOf(ownDoc, '.railyard.yml');
  if (requiredStatuses === undefined) {
    const trunk = await fileAt(gitDir, sha, '.trunk/trunk.yaml');
    if (trunk !== null) requiredStatuses = requiredOf(parseYaml(trunk, '.trunk/trunk.yaml'), '.trunk/trunk.yaml');
  }
  return { checks, ...(requiredStatuses ? { requiredStatuses } : {}) };
};
