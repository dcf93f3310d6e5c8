import { repoSlug } from '@railyard/domain';
import type { WebhookEventType } from './event-types';
import type { WebhookMessage } from './messages';

/** The events a Slack destination posts about by default: the ones a person acts on. */
export const SLACK_EVENT_TYPES: readonly WebhookEventType[] = [
  'pull_request.merged',
  'pull_request.failed',
  'pull_request.pending_failure',
  'queue.state_changed',
];

interface Check {
  context: string;
  url?: string;
}

/** Slack's mrkdwn: these three characters are its markup and must be escaped in text we did not write. */
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const link = (url: string, text: string): string => `<${url.replace(/[<>|]/g, encodeURIComponent)}|${esc(text)}>`;

/**
 * The Slack incoming-webhook body for a message: a `text` line that reads on its own (notifications,
 * old clients) and the same in a section block, with a link to the dashboard. Undefined for the
 * events Slack does not post about.
 */
export const slackMessageOf = (message: WebhookMessage): { text: string; blocks: unknown[] } | undefined => {
  const p = message.payload as Record<string, unknown>;
  const repo = repoSlug(message.repo);
  const where = `${repo} → ${message.targetBranch}`;
  const details = String(p.http_details_url ?? '');
  const prRef = (): string => link(details, `#${String(p.pr_number)} ${String(p.railyard_pr_title ?? '')}`.trim());
  const checks = (): string => {
    const failing = (p.railyard_failing_checks as Check[] | undefined) ?? [];
    if (failing.length === 0) return '';
    return `\nFailing: ${failing.map((c) => (c.url ? link(c.url, c.context) : esc(c.context))).join(', ')}`;
  };
  let text: string;
  switch (message.type) {
    case 'pull_request.merged':
      text = `:white_check_mark: Merged ${prRef()} by ${esc(String(p.author))} into ${esc(where)}`;
      break;
    case 'pull_request.failed':
      text = `:x: Failed ${prRef()} by ${esc(String(p.author))} in ${esc(where)}: ${esc(String(p.railyard_reason ?? p.failure_reason ?? 'unknown reason'))}${
        p.railyard_detail ? ` (${esc(String(p.railyard_detail))})` : ''
      }${checks()}`;
      break;
    case 'pull_request.pending_failure':
      text = `:warning: Pending failure ${prRef()} by ${esc(String(p.author))} in ${esc(where)}: waiting on the PRs ahead before it is failed${checks()}`;
      break;
    case 'queue.state_changed': {
      const state = String(p.status);
      const icon = state === 'paused' ? ':double_vertical_bar:' : state === 'draining' ? ':hourglass_flowing_sand:' : ':arrow_forward:';
      text = `${icon} Queue ${link(details, where)} is now ${esc(state)} (was ${esc(String(p.previous_status))})`;
      break;
    }
    case 'test_case.status_changed':
    case 'test_case.quarantining_setting_changed': {
      const t = p.test_case as { name: string; html_url: string; quarantined: boolean };
      const test = `Test ${link(t.html_url, t.name)} in ${esc(repo)}`;
      if (message.type === 'test_case.status_changed') {
        const change = p.status_change as { previous_status: string; current_status: { value: string; reason: string } };
        text = `:test_tube: ${test} is now ${esc(change.current_status.value)} (was ${esc(change.previous_status)}): ${esc(
          change.current_status.reason,
        )}${t.quarantined ? '; quarantined' : ''}`;
      } else {
        const q = p.quarantine_setting_changed as {
          actor: { full_name: string };
          updated_quarantining_setting: string;
          reason: string | null;
        };
        text = `:test_tube: ${test}: quarantine set to ${esc(q.updated_quarantining_setting)} by ${esc(q.actor.full_name)}${
          q.reason ? ` (${esc(q.reason)})` : ''
        }`;
      }
      break;
    }
    default:
      return undefined;
  }
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
};
