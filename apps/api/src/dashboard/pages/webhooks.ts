import { formatRepo } from '@railyard/domain';
import { WEBHOOK_EVENT_TYPES, type DeliveryAttempt, type EndpointView } from '@railyard/webhooks';
import { html, type SafeHtml } from '../html';
import { csrfField, tableHead } from '../layout';

export const WEBHOOKS_PATH = '/webhooks';
export const endpointPath = (endpointId: string): string => `${WEBHOOKS_PATH}/${encodeURIComponent(endpointId)}`;

type Attempt = Omit<DeliveryAttempt, 'body' | 'endpointId'>;

/** Enabled, or who stopped it and why: an admin, or the deliveries that kept failing (with the last error). */
const stateOf = (e: EndpointView): SafeHtml => {
  if (e.enabled) return html`<span class="state state-success" data-code="ENABLED">enabled</span>`;
  const at = e.disabled ? html` <span class="muted">since ${e.disabled.at}</span>` : '';
  if (e.disabled?.reason === 'DELIVERY_FAILED')
    return html`<span class="state state-failed" data-code="DELIVERY_FAILED">disabled after failed deliveries</span>${at}${
        e.disabled.detail ? html`<br /><span class="muted">${e.disabled.detail}</span>` : ''
      }`;
  return html`<span class="state" data-code="ADMIN_REQUESTED">disabled by an admin</span>${at}`;
};

const filterOf = (e: EndpointView): SafeHtml => {
  const all = (what: string) => html`<span class="muted">${what}</span>`;
  return html`<dl>
    <dt>Events</dt>
    <dd>${e.events.length > 0 ? e.events.join(', ') : all(e.kind === 'slack' ? 'Slack’s default set' : 'all')}</dd>
    <dt>Repositories</dt>
    <dd>${e.repos.length > 0 ? e.repos.map(formatRepo).join(', ') : all('all')}</dd>
    <dt>Branches</dt>
    <dd>${e.targetBranches.length > 0 ? e.targetBranches.join(', ') : all('all')}</dd>
  </dl>`;
};

/**
 * Only the scheme and host for a non-admin: a Slack incoming-webhook URL (and many others) carries
 * its credential in the path.
 */
const originOf = (url: string): string => {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return '…';
  }
};

/** The create form; its fields become a createWebhookEndpoint request, judged by that operation's schema. */
const createForm = (csrf: string): SafeHtml =>
  html`<details>
    <summary>Add an endpoint</summary>
    <form method="post" action="${WEBHOOKS_PATH}" aria-label="add an endpoint">
      ${csrfField(csrf)}
      <div class="fields">
        <label
          >Kind<select name="kind">
            <option value="webhook">webhook (Trunk’s events, signed)</option>
            <option value="slack">Slack incoming webhook</option>
          </select></label
        >
        <label>URL<input name="url" type="url" required placeholder="https://hooks.example.com/railyard" /></label>
        <label>Description<input name="description" /></label>
        <label>Events (comma-separated; empty: all)<input name="events" list="webhook-event-types" /></label>
        <label>Repositories (host/owner/name, comma-separated; empty: all)<input name="repos" /></label>
        <label>Branches (comma-separated; empty: all)<input name="targetBranches" /></label>
      </div>
      <datalist id="webhook-event-types">${WEBHOOK_EVENT_TYPES.map((t) => html`<option value="${t}"></option>`)}</datalist>
      <button>Add endpoint</button>
    </form>
  </details>`;

/** Every endpoint; an admin also gets each one's page (controls, delivery log) and the create form. */
export const webhooksBody = (endpoints: readonly EndpointView[], admin: { csrf: string } | undefined): SafeHtml =>
  html`${
    endpoints.length === 0
      ? html`<p>No webhook endpoint yet.</p>`
      : html`<div class="scroll">
          <table class="stack">
            ${tableHead('Endpoint', 'Kind', 'State', 'Sends')}
            <tbody>
              ${endpoints.map(
                (e) =>
                  html`<tr data-endpoint="${e.endpointId}">
                    <td data-label="Endpoint">
                      ${admin ? html`<a href="${endpointPath(e.endpointId)}">${e.description || e.url}</a>` : e.description || originOf(e.url)}
                      ${admin && e.description ? html`<br /><code>${e.url}</code>` : ''}
                    </td>
                    <td data-label="Kind">${e.kind}</td>
                    <td data-label="State">${stateOf(e)}</td>
                    <td data-label="Sends">${filterOf(e)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`
  }
  ${admin ? createForm(admin.csrf) : html`<p class="muted">An admin token adds, changes and removes endpoints.</p>`}`;

const button = (csrf: string, action: string, label: string, hidden?: Record<string, string>): SafeHtml =>
  html`<form class="inline" method="post" action="${action}">
    ${csrfField(csrf)}${Object.entries(hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <button>${label}</button>
  </form>`;

const statusOf = (a: Attempt): SafeHtml =>
  a.ok
    ? html`<span class="state state-success">${a.status}</span>`
    : html`<span class="state state-failed">${a.status ?? a.error ?? 'no answer'}</span>`;

/** One endpoint for an admin: its settings and state, the controls, and its latest delivery attempts. */
export const endpointBody = (e: EndpointView, attempts: readonly Attempt[], csrf: string): SafeHtml => {
  const base = endpointPath(e.endpointId);
  return html`<dl>
      <dt>URL</dt>
      <dd><code>${e.url}</code></dd>
      <dt>Kind</dt>
      <dd>${e.kind}</dd>
      <dt>State</dt>
      <dd>${stateOf(e)}</dd>
      <dt>Created</dt>
      <dd>${e.createdAt}</dd>
    </dl>
    ${filterOf(e)}
    <p>
      ${e.enabled ? button(csrf, `${base}/disable`, 'Disable') : button(csrf, `${base}/enable`, 'Enable')}
      ${button(csrf, `${base}/rotate`, 'Rotate secret')} ${button(csrf, `${base}/delete`, 'Delete endpoint')}
    </p>
    <h2>Deliveries</h2>
    ${
      attempts.length === 0
        ? html`<p>Nothing sent yet.</p>`
        : html`<div class="scroll">
            <table class="stack" aria-label="deliveries">
              ${tableHead('At', 'Event', 'Message', 'Try', 'Status', 'Latency', 'Answer', '')}
              <tbody>
                ${attempts.map(
                  (a) =>
                    html`<tr data-attempt="${a.attemptId}">
                      <td data-label="At">${a.at}</td>
                      <td data-label="Event">${a.eventType}</td>
                      <td data-label="Message"><code title="${a.messageId}" data-id="${a.messageId}">${a.messageId.slice(0, 12)}</code></td>
                      <td data-label="Try">${a.attempt === 0 ? 'sent again' : a.attempt}</td>
                      <td data-label="Status">${statusOf(a)}</td>
                      <td data-label="Latency">${Math.round(a.latencyMs)} ms</td>
                      <td data-label="Answer"><code>${a.responseExcerpt}</code></td>
                      <td>${button(csrf, `${base}/resend`, 'Send again', { attemptId: String(a.attemptId) })}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <p><a href="${WEBHOOKS_PATH}">All endpoints</a></p>`;
};

/** The one time a secret is shown: after create and after rotate (the page is never cached). */
export const secretBody = (e: EndpointView, secret: string): SafeHtml =>
  html`<p>
      The signing secret of <a href="${endpointPath(e.endpointId)}">${e.description || e.url}</a>, shown this once: keep it where the
      receiver verifies messages (docs/webhooks.md).
    </p>
    <p><code class="secret" aria-label="signing secret">${secret}</code></p>
    <p><a href="${endpointPath(e.endpointId)}">Go to the endpoint</a></p>`;
