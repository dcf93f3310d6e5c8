import request from 'supertest';

export const REPO = { host: 'git.local', owner: 'acme', name: 'widgets' };

/** A JSON POST to `/v1<path>` of one server with one token; its answer is held against Trunk's contract (support/trunk-hook.ts). */
export const poster =
  (url: string, token: string) =>
  (path: string, body: unknown): request.Test =>
    request(url)
      .post(`/v1${path}`)
      .set('x-api-token', token)
      .send(body as object);

/** A thin JSON client over supertest for one base URL and token, about one repository's queues (REPO unless given). */
export const client = (url: string, token: string, repo: typeof REPO = REPO) => {
  const post = poster(url, token);
  return {
    post,
    createQueue: (extra: object = {}, branch = 'main') => post('/createQueue', { repo, targetBranch: branch, ...extra }),
    updateQueue: (extra: object, branch = 'main') => post('/updateQueue', { repo, targetBranch: branch, ...extra }),
    getQueue: (branch = 'main') => post('/getQueue', { repo, targetBranch: branch }),
    deleteQueue: (branch = 'main') => post('/deleteQueue', { repo, targetBranch: branch }),
    submit: (number: number | string, extra: object = {}, branch = 'main') =>
      post('/submitPullRequest', { repo, targetBranch: branch, pr: { number }, ...extra }),
    cancel: (number: number, branch = 'main') => post('/cancelPullRequest', { repo, targetBranch: branch, pr: { number } }),
    restart: (number: number, branch = 'main') => post('/restartTestsOnPullRequest', { repo, targetBranch: branch, pr: { number } }),
    getPr: (number: number, branch = 'main') => post('/getSubmittedPullRequest', { repo, targetBranch: branch, pr: { number } }),
    setTargets: (number: number, impactedTargets: unknown, extra: object = {}, branch = 'main') =>
      post('/setImpactedTargets', { repo, targetBranch: branch, pr: { number, ...extra }, impactedTargets }),
  };
};
