import { MAX_PRIORITY_VALUE, PRIORITY_NAMES, type PriorityName } from '@railyard/domain';

/**
 * A queue command written in a PR comment (docs/github.md, "Commands in PR comments"):
 * `/railyard merge [--priority urgent|high|medium|low|0-255]`, `/railyard cancel`,
 * `/railyard restart`, and `/trunk merge` for teams moving over from Trunk.
 */
export type CommentCommand =
  | { kind: 'merge'; priority?: number | PriorityName }
  | { kind: 'cancel' }
  | { kind: 'restart' }
  /** Addressed to Railyard but not understood: answered with a `confused` reaction. */
  | { kind: 'invalid'; problem: string };

const COMMAND_LINE = /^\s*\/(railyard|trunk)(?:\s+(.*?))?\s*$/i;

const parsePriority = (value: string | undefined): number | PriorityName | { problem: string } => {
  if (value === undefined) return { problem: '--priority needs a value' };
  const lower = value.toLowerCase();
  if ((PRIORITY_NAMES as readonly string[]).includes(lower)) return lower as PriorityName;
  if (/^\d{1,3}$/.test(value) && Number(value) <= MAX_PRIORITY_VALUE) return Number(value);
  return { problem: `--priority must be urgent, high, medium, low or 0-${MAX_PRIORITY_VALUE}, not "${value}"` };
};

const parseArgs = (tool: string, args: string[]): CommentCommand => {
  const [verb, ...rest] = args.map((a) => a.trim()).filter((a) => a !== '');
  const name = verb?.toLowerCase();
  if (tool === 'trunk' && name !== 'merge') return { kind: 'invalid', problem: 'only `/trunk merge` is understood' };
  if (name === 'cancel' || name === 'restart') {
    if (rest.length > 0) return { kind: 'invalid', problem: `/railyard ${name} takes no options` };
    return { kind: name };
  }
  if (name !== 'merge') return { kind: 'invalid', problem: `unknown command "${verb ?? ''}"` };
  let priority: number | PriorityName | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    const [flag, inline] = arg.split('=', 2);
    if (flag !== '--priority') return { kind: 'invalid', problem: `unknown option "${arg}"` };
    const parsed = parsePriority(inline ?? rest[++i]);
    if (typeof parsed === 'object') return { kind: 'invalid', problem: parsed.problem };
    priority = parsed;
  }
  return priority === undefined ? { kind: 'merge' } : { kind: 'merge', priority };
};

/**
 * The command a comment carries: the first line that starts with `/railyard` or `/trunk`, or null when
 * no line does (an ordinary comment). Quoted lines (`> /railyard merge`) are someone quoting, not asking.
 */
export const parseCommentCommand = (body: string): CommentCommand | null => {
  for (const line of body.split(/\r?\n/)) {
    const m = COMMAND_LINE.exec(line);
    if (!m) continue;
    const tool = (m[1] ?? '').toLowerCase();
    return parseArgs(tool, (m[2] ?? '').split(/\s+/));
  }
  return null;
};
