import YAML from 'yaml';
import { z } from 'zod';

export const RAILYARD_CONFIG_FILE = '.railyard.yml';
export const TRUNK_CONFIG_FILE = '.trunk/trunk.yaml';
/** Bigger than any sane config; a bigger file is refused before YAML sees it. */
export const MAX_CONFIG_BYTES = 256 * 1024;
export const MAX_CHECK_NAME_LENGTH = 100;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/** A check's name is also its status context and part of its log's URL: printable, not too long. */
export const isValidCheckName = (name: string): boolean =>
  name.trim() === name && name.length > 0 && name.length <= MAX_CHECK_NAME_LENGTH && !CONTROL.test(name);

const checkName = z
  .string()
  .refine(isValidCheckName, `a check name must be 1-${MAX_CHECK_NAME_LENGTH} printable characters without surrounding spaces`);

/** Relative to the checkout, forward slashes, never leaving it. */
const reportPattern = z
  .string()
  .min(1)
  .max(500)
  .refine(
    (p) => !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\\') && !CONTROL.test(p),
    'a report pattern must be a relative path inside the checkout',
  );

const requiredStatuses = z.array(z.string().trim().min(1).max(255)).max(1000);

// Unknown keys are kept quiet at the top level and under `merge`, so a file shared with other tools
// (or a newer Railyard) still loads; the keys we read are checked strictly.
const railyardSchema = z
  .object({
    ci: z.record(checkName, z.string().trim().min(1, 'a check command must not be empty').max(10_000)).optional(),
    reports: z.array(reportPattern).max(100).optional(),
    merge: z.object({ required_statuses: requiredStatuses.optional() }).passthrough().nullish(),
  })
  .passthrough();

const trunkSchema = z.object({ merge: z.object({ required_statuses: requiredStatuses.optional() }).passthrough().nullish() }).passthrough();

export interface Check {
  name: string;
  command: string;
}

export interface RailyardConfig {
  checks: Check[];
  reports: string[];
  /** Absent when the file does not name any (an empty list counts as absent, as in the v1 API). */
  requiredStatuses?: string[];
}

export type ConfigParse<T> = { ok: true; config: T } | { ok: false; message: string };

const parseYaml = (text: string, file: string): ConfigParse<unknown> => {
  if (Buffer.byteLength(text, 'utf8') > MAX_CONFIG_BYTES)
    return { ok: false, message: `${file} is larger than ${MAX_CONFIG_BYTES / 1024} KiB` };
  try {
    // maxAliasCount guards against alias bombs; uniqueKeys catches a check defined twice.
    const data: unknown = YAML.parse(text, { maxAliasCount: 50, uniqueKeys: true });
    return { ok: true, config: data ?? {} };
  } catch (err) {
    return { ok: false, message: `${file} is not valid YAML: ${firstLine((err as Error).message)}` };
  }
};

const firstLine = (s: string): string => s.split('\n')[0]?.trim() ?? s;

// A bad check name comes back as "invalid key" with the reason nested one level down.
const messageOf = (issue: z.core.$ZodIssue): string =>
  issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;

const describeIssues = (file: string, error: z.ZodError): string =>
  `${file}: ${error.issues.map((i) => `${i.path.map(String).join('.') || '(top level)'}: ${messageOf(i)}`).join('; ')}`;

const listOrUndefined = (list: string[] | undefined): string[] | undefined => (list && list.length > 0 ? [...new Set(list)] : undefined);

/** `.railyard.yml`: the checks the local CI runs, the reports it uploads, and the required statuses. */
export const parseRailyardConfig = (text: string, file = RAILYARD_CONFIG_FILE): ConfigParse<RailyardConfig> => {
  const yaml = parseYaml(text, file);
  if (!yaml.ok) return yaml;
  const parsed = railyardSchema.safeParse(yaml.config);
  if (!parsed.success) return { ok: false, message: describeIssues(file, parsed.error) };
  const d = parsed.data;
  const config: RailyardConfig = {
    checks: Object.entries(d.ci ?? {}).map(([name, command]) => ({ name, command })),
    reports: d.reports ?? [],
  };
  const required = listOrUndefined(d.merge?.required_statuses);
  return { ok: true, config: required ? { ...config, requiredStatuses: required } : config };
};

/** `.trunk/trunk.yaml`, read for teams moving over: only `merge.required_statuses` matters here. */
export const parseTrunkConfig = (text: string, file = TRUNK_CONFIG_FILE): ConfigParse<{ requiredStatuses?: string[] }> => {
  const yaml = parseYaml(text, file);
  if (!yaml.ok) return yaml;
  const parsed = trunkSchema.safeParse(yaml.config);
  if (!parsed.success) return { ok: false, message: describeIssues(file, parsed.error) };
  const required = listOrUndefined(parsed.data.merge?.required_statuses);
  return { ok: true, config: required ? { requiredStatuses: required } : {} };
};
