import { PR_STATE_WORDS, RUN_STATUS_WORDS, wordsFor } from '@railyard/domain';
import { html, type Renderable, type SafeHtml } from './html';

const STATE_WORDS: Readonly<Record<string, string>> = { ...RUN_STATUS_WORDS, ...PR_STATE_WORDS };
import type { Session } from './session';

const STYLE = `
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff;overflow-wrap:break-word}
header{display:flex;flex-wrap:wrap;gap:.4em 1.2em;align-items:center;padding:.6em 1.2em;background:#1b1f24;color:#fff;width:100%}
header a{color:#fff}header .who{margin-left:auto}
main{padding:1em 1.2em;max-width:1200px}
h1{font-size:1.6em;margin:.3em 0}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;margin:.5em 0 1.2em}
th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid #d0d7de;vertical-align:top}
a{color:#0550ae}.muted{color:#57606a}code{font-size:.92em}
.state{font-weight:600}.state-failed,.state-failure,.state-error{color:#a40e26}.state-merged,.state-success,.state-succeeded{color:#116329}.state-testing{color:#7a4d00}
svg{max-width:100%;height:auto}figure{display:inline-block;margin:.4em 1.2em .4em 0;max-width:100%}
.chart rect{fill:#0550ae}.chart .axis{stroke:#57606a;stroke-width:1}.chart text{font-size:11px;fill:#1b1f24}
.graph rect.tested{fill:#ddf4ff;stroke:#0550ae}.graph rect.stacked{fill:#f6f8fa;stroke:#57606a}.graph text{font-size:12px}
form.inline{display:inline}button{font:inherit;padding:.2em .7em;cursor:pointer}
.cards{display:flex;flex-wrap:wrap;gap:1em}.card{border:1px solid #d0d7de;border-radius:6px;padding:.8em 1em;min-width:0;flex:1 1 300px;max-width:100%}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2em 1em}dt{color:#57606a}dd{margin:0}
.error{color:#a40e26}
.problem{border:1px solid #a40e26;background:#ffebe9;border-radius:6px;padding:.6em 1em;margin:.5em 0}
.run{border-left:3px solid #0550ae;padding-left:.8em;margin:.8em 0}.checks{margin:.3em 0;padding-left:1.2em}
fieldset{border:1px solid #d0d7de;border-radius:6px;margin:.5em 0;min-width:0}
.fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(14em,1fr));gap:.5em 1em}
@media (max-width:640px){main{padding:.8em}table.stack thead{display:none}table.stack tr{display:block;border-bottom:1px solid #d0d7de;padding:.3em 0}table.stack td{display:block;border:0;padding:.1em .2em}table.stack td[data-label]::before{content:attr(data-label) ': ';color:#57606a}}
.fields label{display:flex;flex-direction:column;gap:.15em}input,select{font:inherit;max-width:100%}
code.id{cursor:copy}a code.id{cursor:pointer}code.id.copied::after{content:' copied';color:#116329;font-family:system-ui,sans-serif}
`;

export interface PageFrame {
  title: string;
  session?: Session;
  /** The session's CSRF token, for the sign-out form and the page's own forms. */
  csrf?: string;
  /** The SSE topic whose changes re-render the live part of the page (progressive enhancement). */
  live?: string;
}

/** The page shell: navigation, who is signed in, and the live region the SSE script refreshes. */
export const page = (frame: PageFrame, body: Renderable): SafeHtml =>
  html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${frame.title} · Railyard</title>
        <style>
          ${STYLE}
        </style>
        <script src="/dashboard/live.js" defer></script>
      </head>
      <body>
        <header>
          <strong>Railyard</strong>
          <nav aria-label="main">
            <a href="/">Queues</a> · <a href="/tests">Flaky tests</a> · <a href="/webhooks">Webhooks</a> · <a href="/docs">API</a>
          </nav>
          ${
            frame.session
              ? html`<span class="who">${frame.session.name} (${frame.session.scope})</span>
                  <form class="inline" method="post" action="/sign-out">
                    <input type="hidden" name="_csrf" value="${frame.csrf ?? ''}" /><button>Sign out</button>
                  </form>`
              : ''
          }
        </header>
        <main id="live" ${frame.live ? html`data-live="${frame.live}"` : ''}>
          <h1>${frame.title}</h1>
          ${body}
        </main>
      </body>
    </html>`;

/** A table's header row of column names. */
export const tableHead = (...columns: string[]): SafeHtml =>
  html`<thead>
    <tr>
      ${columns.map((c) => html`<th scope="col">${c}</th>`)}
    </tr>
  </thead>`;

/** A hidden CSRF field for a form of this session. */
export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="_csrf" value="${token}" />`;

/** A state in the domain's plain words (PR states unless another table is given); the code stays in the title and data-code. */
export const stateBadge = (state: string, table: Readonly<Record<string, string>> = STATE_WORDS): SafeHtml =>
  html`<span class="state state-${state}" title="${state}" data-code="${state}">${wordsFor(table, state)}</span>`;

/**
 * The page script (served at /dashboard/live.js, same origin, so the CSP needs no inline script). A
 * shortened id copies as the whole id: selected and copied, or clicked where it is not a link. On a
 * live page, each server-sent event fetches the page again and swaps the live region.
 */
export const LIVE_JS = `(() => {
  const idAt = (node) => {
    const el = node && (node.nodeType === 1 ? node : node.parentElement);
    return el && el.closest ? el.closest('code.id') : null;
  };
  document.addEventListener('copy', (e) => {
    const sel = document.getSelection();
    const id = sel && idAt(sel.anchorNode);
    if (!id || id !== idAt(sel.focusNode) || !e.clipboardData) return;
    e.clipboardData.setData('text/plain', id.dataset.id);
    e.preventDefault();
  });
  document.addEventListener('click', (e) => {
    const id = idAt(e.target);
    if (!id || id.closest('a') || !navigator.clipboard) return;
    navigator.clipboard.writeText(id.dataset.id).then(() => {
      id.classList.add('copied');
      setTimeout(() => id.classList.remove('copied'), 1500);
    }, () => undefined);
  });
  const region = document.getElementById('live');
  const topic = region && region.dataset.live;
  if (!topic || !window.EventSource) return;
  const source = new EventSource('/dashboard/events?topic=' + encodeURIComponent(topic));
  let busy = false;
  source.addEventListener('change', async () => {
    if (busy) return;
    busy = true;
    try {
      const res = await fetch(location.href, { credentials: 'same-origin' });
      if (res.ok) {
        const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
        const next = doc.getElementById('live');
        if (next) region.innerHTML = next.innerHTML;
      }
    } finally {
      busy = false;
    }
  });
})();
`;
