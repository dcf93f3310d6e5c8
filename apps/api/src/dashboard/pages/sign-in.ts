import { html, type SafeHtml } from '../html';
import { csrfField } from '../layout';

export const signInBody = (csrf: string, next: string, error?: string): SafeHtml =>
  html` <p>
      Sign in with an API token. The page then shows what the token's scope allows: read sees every page, write can cancel and restart PRs,
      admin can pause, resume and drain queues.
    </p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <form method="post" action="/sign-in">
      ${csrfField(csrf)}<input type="hidden" name="next" value="${next}" />
      <label for="token">API token</label>
      <input id="token" name="token" type="password" autocomplete="current-password" required />
      <button>Sign in</button>
    </form>`;
