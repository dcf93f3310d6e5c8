/**
 * The host name the repositories of a GitHub carry in queue ids (`RepoRef.host`): `github.com` for
 * the public API, the server's name for GitHub Enterprise Server (`https://ghes.example.com/api/v3`).
 */
export const githubHostOf = (apiUrl: string): string => {
  const { hostname } = new URL(apiUrl);
  return hostname === 'api.github.com' ? 'github.com' : hostname;
};
