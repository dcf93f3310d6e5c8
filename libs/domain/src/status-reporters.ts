/**
 * Who reported a commit status, as recorded with it (docs/security.md, "Who may report a status"):
 * - `local-ci`: Railyard's own local CI runner;
 * - `token:<name>`: a client of the HTTP API with the token of that name (`setCommitStatus`);
 * - `cli`: `railyard status set` writing straight to the data dir's event store (the server's own user);
 * - `github-app:<slug>`: a check run of that GitHub App; `github-user:<login>`: a commit status that GitHub user or bot posted.
 * A status recorded before reporters were recorded has none: its reporter is unknown.
 */
export const LOCAL_CI_REPORTER = 'local-ci';
export const CLI_REPORTER = 'cli';
export const tokenReporter = (name: string): string => `token:${name}`;
export const githubAppReporter = (slug: string): string => `github-app:${slug}`;
export const githubUserReporter = (login: string): string => `github-user:${login}`;
