import type { FakeApp, FakeInstallation } from '../model';
import { simpleUser } from './users';
import { nodeId } from './urls';
import type { View } from './view';

/** GitHub's `integration`: an App as other objects embed it. */
export const integration = (app: FakeApp, view: View) => ({
  id: app.id,
  slug: app.slug,
  node_id: nodeId('A', app.id),
  client_id: `Iv1.${app.id.toString(16).padStart(16, '0')}`,
  owner: simpleUser(app.owner, view.urls),
  name: app.name,
  description: null,
  external_url: `${view.urls.html}/apps/${app.slug}/home`,
  html_url: `${view.urls.html}/apps/${app.slug}`,
  created_at: app.createdAt,
  updated_at: app.createdAt,
  permissions: app.permissions,
  events: app.events,
});

/** GitHub's `installation`. */
export const installation = (inst: FakeInstallation, view: View) => {
  const app = view.state.app(inst.appId);
  return {
    id: inst.id,
    account: simpleUser(inst.account, view.urls),
    repository_selection: inst.repositorySelection,
    access_tokens_url: `${view.urls.api}/app/installations/${inst.id}/access_tokens`,
    repositories_url: `${view.urls.api}/installation/repositories`,
    html_url: `${view.urls.html}/settings/installations/${inst.id}`,
    app_id: app.id,
    app_slug: app.slug,
    target_id: inst.account.id,
    target_type: inst.account.type === 'Organization' ? 'Organization' : 'User',
    permissions: inst.permissions,
    events: app.events,
    created_at: inst.createdAt,
    updated_at: inst.createdAt,
    single_file_name: null,
    suspended_by: inst.suspendedAt === null ? null : simpleUser(inst.account, view.urls),
    suspended_at: inst.suspendedAt,
  };
};
