import { dashboardLinks, WebhookMapper } from './mapping';
import { slackMessageOf } from './slack';
import { LogBuilder } from './testing/log';

const messagesOf = (log: LogBuilder) => {
  const mapper = new WebhookMapper(dashboardLinks('https://ry.example.com'));
  return log.events.flatMap((e) => mapper.apply(e));
};

describe('slackMessageOf', () => {
  it('when a PR fails, then the message names the reason, the failing check with its log link and the dashboard page', () => {
    const log = new LogBuilder()
      .created()
      .submitted(8)
      .testing('r', [8])
      .add('TestRunStatusReported', { testRunId: 'r', context: 'unit <fast>', state: 'failure', url: 'https://ci.example.com/l/1' })
      .add('PrFailed', { prNumber: 8, testRunId: 'r', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: 'unit failed' });
    const failed = messagesOf(log).find((m) => m.type === 'pull_request.failed');
    const slack = failed && slackMessageOf(failed);
    expect(slack?.text).toBe(
      ':x: Failed <https://ry.example.com/queues/github.com~acme~rocket~main/prs/8|#8 PR 8> by octocat in acme/rocket → main: ' +
        'TEST_RUN_REQUIRED_STATUS_FAILED (unit failed)\nFailing: <https://ci.example.com/l/1|unit &lt;fast&gt;>',
    );
    expect(slack?.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: slack?.text } }]);
  });

  it('when the queue is paused, then the message says so and links the queue; a submission posts nothing', () => {
    const messages = messagesOf(new LogBuilder().created().submitted(1).add('QueueStateChanged', { from: 'running', to: 'paused' }));
    expect(slackMessageOf(messages[0]!)).toBeUndefined();
    expect(slackMessageOf(messages.at(-1)!)?.text).toBe(
      ':double_vertical_bar: Queue <https://ry.example.com/queues/github.com~acme~rocket~main|acme/rocket → main> is now paused (was running)',
    );
  });
});
