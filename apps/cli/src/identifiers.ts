import ms from 'ms';
import { MAX_PRIORITY_VALUE, MAX_UINT32, PRIORITY_NAMES, type PriorityName, type RepoRef } from '@railyard/domain';
import { isValidBranchName, parseRepoSpec } from '@railyard/githost';
import { UsageError } from './context';

/**
 * Every identifier typed on the command line is checked here, before anything is read, written or
 * sent: the same rules the local git host applies where a name meets the file system.
 */

const shown = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

export const repoOption = (value: string | undefined, flag = '--repo'): RepoRef => {
  if (value === undefined) throw new UsageError(`${flag} is required`);
  const repo = parseRepoSpec(value);
  if (repo === null)
    throw new UsageError(`${flag} must be HOST/OWNER/NAME, each part letters, digits, '.', '_' or '-' (not first), got ${shown(value)}`);
  return repo;
};

export const branchOption = (value: string | undefined, flag = '--branch'): string => {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  if (!isValidBranchName(value)) throw new UsageError(`${flag} is not a valid branch name (git check-ref-format rules): ${shown(value)}`);
  return value;
};

/** A positive integer, as digits only: `1e3`, `0x10`, `+4` and `4.0` are refused rather than guessed at. */
export const positiveIntOption = (flag: string, value: string | undefined, max = MAX_UINT32): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^[1-9][0-9]*$/.test(value) || n > max) throw new UsageError(`${flag} must be a positive integer up to ${max}, got ${shown(value)}`);
  return n;
};

export const prNumberOption = (value: string | undefined, flag = '--pr'): number => {
  const n = positiveIntOption(flag, value);
  if (n === undefined) throw new UsageError(`${flag} is required`);
  return n;
};

export const priorityOption = (value: string | undefined): number | PriorityName | undefined => {
  if (value === undefined) return undefined;
  const name = value.toLowerCase();
  if ((PRIORITY_NAMES as readonly string[]).includes(name)) return name as PriorityName;
  if (/^(0|[1-9][0-9]{0,2})$/.test(value) && Number(value) <= MAX_PRIORITY_VALUE) return Number(value);
  throw new UsageError(`--priority must be one of ${PRIORITY_NAMES.join(', ')} or 0-${MAX_PRIORITY_VALUE}, got ${shown(value)}`);
};

/** `2h`, `90m`, `30s`, `1500ms`: a unit is required, since a bare number could mean seconds or milliseconds. */
export const durationOption = (flag: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const millis = /^\d+(\.\d+)?\s*[a-z]+$/i.test(value.trim()) ? ms(value.trim() as ms.StringValue) : undefined;
  if (millis === undefined || !Number.isFinite(millis) || millis <= 0)
    throw new UsageError(`${flag} must be a duration with a unit, e.g. 2h, 90m, 30s; got ${shown(value)}`);
  return millis;
};

export const urlOption = (flag: string, value: string): string => {
  if (!/^https?:\/\/[^\s/]+\S*$/i.test(value)) throw new UsageError(`${flag} must be the server's http(s) URL, e.g. http://127.0.0.1:8080`);
  return value.replace(/\/+$/, '');
};
