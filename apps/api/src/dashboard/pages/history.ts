import { html, type SafeHtml } from '../html';
import { stateBadge } from '../layout';
import { historyPath, prPath, queuePath } from '../links';

interface ReplayedEntry {
  number: number;
  title: string;
  state: string;
  priorityName: string;
  waitingOn?: { message: string }[];
}

export interface HistoryPageData {
  queueId: string;
  at: string;
  /** Decision times of the stream's events, oldest first: the steps of the time control. */
  times: string[];
  replayed: { state: string; enqueuedPullRequests: ReplayedEntry[] } | null;
}

export const historyBody = (d: HistoryPageData): SafeHtml => {
  const at = Date.parse(d.at);
  const before = [...d.times].reverse().find((t) => Date.parse(t) < at);
  const after = d.times.find((t) => Date.parse(t) > at);
  return html`<p><a href="${queuePath(d.queueId)}">← queue now</a></p>
    <form method="get" action="${historyPath(d.queueId)}">
      <label>Instant (ISO 8601) <input name="at" value="${d.at}" size="30" /></label> <button>Show</button>
      ${before ? html`<a href="${historyPath(d.queueId, before)}">← previous event</a>` : ''}
      ${after ? html`<a href="${historyPath(d.queueId, after)}">next event →</a>` : ''}
    </form>
    ${
      d.replayed === null
        ? html`<p>The queue did not exist at ${d.at}.</p>`
        : html`<p>At ${d.at} the queue was ${stateBadge(d.replayed.state)} with ${d.replayed.enqueuedPullRequests.length} PR(s).</p>
            <table>
              <thead>
                <tr>
                  <th scope="col">Pos</th>
                  <th scope="col">PR</th>
                  <th scope="col">State</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Waiting on</th>
                </tr>
              </thead>
              <tbody>
                ${d.replayed.enqueuedPullRequests.map(
                  (p, i) =>
                    html`<tr>
                      <td>${i + 1}</td>
                      <td><a href="${prPath(d.queueId, p.number)}">#${p.number}</a> ${p.title}</td>
                      <td>${stateBadge(p.state)}</td>
                      <td>${p.priorityName}</td>
                      <td>${(p.waitingOn ?? []).map((w) => w.message).join('; ')}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }`;
};
