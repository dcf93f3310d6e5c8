import { MERGE_METHODS, QUEUE_MODES, type QueueSettings } from '@railyard/domain';
import type { QueueView } from '@railyard/readmodels';
import { html, type SafeHtml } from '../html';
import { csrfField } from '../layout';
import { queuePath } from '../links';

/** The settings both forms edit, each with its current (or default) value. */
const settingFields = (s?: QueueSettings, requiredStatuses: readonly string[] = []): SafeHtml => {
  const number = (name: keyof QueueSettings, label: string, min: number) =>
    html`<label
      >${label}<input name="${name}" type="number" inputmode="numeric" min="${min}" value="${s ? String(s[name]) : ''}"
    /></label>`;
  const choice = (name: keyof QueueSettings, label: string, options: readonly string[]) =>
    html`<label
      >${label}<select name="${name}">
        ${s ? '' : html`<option value="">default</option>`}
        ${options.map((o) => html`<option value="${o}" ${s?.[name] === o ? 'selected' : ''}>${o.replace(/_/g, ' ')}</option>`)}
      </select></label
    >`;
  return html`<div class="fields">
    ${choice('mode', 'Mode', QUEUE_MODES)} ${number('concurrency', 'Runs at a time', 1)}
    ${number('testingTimeoutMinutes', 'Testing timeout (minutes)', 1)} ${number('pendingFailureDepth', 'Pending failure depth', 0)}
    ${number('flakeRetries', 'Flake re-runs', 0)} ${choice('mergeMethod', 'Merge method', MERGE_METHODS)}
    <label
      >Batching<select name="batch">
        ${s ? '' : html`<option value="">default</option>`}
        <option value="yes" ${s?.batch ? 'selected' : ''}>yes</option>
        <option value="no" ${s && !s.batch ? 'selected' : ''}>no</option>
      </select></label
    >
    <label
      >Required checks (comma-separated; empty: from the repository)<input name="requiredStatuses" value="${requiredStatuses.join(', ')}"
    /></label>
  </div>`;
};

/** The admin's settings form of a queue: the same fields, judged by updateQueue's schema on the server. */
export const queueSettingsForm = (q: QueueView, csrf: string): SafeHtml =>
  html`<details>
    <summary>Change settings</summary>
    <form method="post" action="${queuePath(q.queueId)}/settings" aria-label="queue settings">
      ${csrfField(csrf)}
      <fieldset>
        <legend>Settings of ${q.branch}</legend>
        ${settingFields(q.settings, q.requiredStatuses)}
      </fieldset>
      <button>Save settings</button>
    </form>
  </details>`;

/** The admin's form that creates a queue, judged by createQueue's schema on the server. */
export const createQueueForm = (csrf: string): SafeHtml =>
  html`<details>
    <summary>Create a queue</summary>
    <form method="post" action="/queues" aria-label="create a queue">
      ${csrfField(csrf)}
      <fieldset>
        <legend>Repository and branch</legend>
        <div class="fields">
          <label>Host<input name="host" required placeholder="git.local or github.com" /></label>
          <label>Owner<input name="owner" required /></label>
          <label>Repository<input name="name" required /></label>
          <label>Target branch<input name="targetBranch" required value="main" /></label>
        </div>
      </fieldset>
      <fieldset>
        <legend>Settings (empty: the defaults)</legend>
        ${settingFields()}
      </fieldset>
      <button>Create queue</button>
    </form>
  </details>`;
