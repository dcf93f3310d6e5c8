/**
 * The Octokit packages ship only as ES modules. Railyard's TypeScript runs as CommonJS (tsx in
 * production, @swc/jest in tests), so they are loaded with import(), once per process; see
 * docs/decisions.md D80 for why this is the robust route under both.
 */

export interface OctokitModules {
  App: typeof import('@octokit/app').App;
  Octokit: typeof import('@octokit/core').Octokit;
  throttling: typeof import('@octokit/plugin-throttling').throttling;
  retry: typeof import('@octokit/plugin-retry').retry;
  Webhooks: typeof import('@octokit/webhooks').Webhooks;
  emitterEventNames: typeof import('@octokit/webhooks').emitterEventNames;
}

let loading: Promise<OctokitModules> | undefined;

export const loadOctokit = (): Promise<OctokitModules> => {
  loading ??= Promise.all([
    import('@octokit/app'),
    import('@octokit/core'),
    import('@octokit/plugin-throttling'),
    import('@octokit/plugin-retry'),
    import('@octokit/webhooks'),
  ]).then(([app, core, throttle, retry, webhooks]) => ({
    App: app.App,
    Octokit: core.Octokit,
    throttling: throttle.throttling,
    retry: retry.retry,
    Webhooks: webhooks.Webhooks,
    emitterEventNames: webhooks.emitterEventNames,
  }));
  return loading;
};
