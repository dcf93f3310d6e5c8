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

/** A thin JSON client over supertest for one base URL and token. */
export const client = (url: string, token: string) => {
  const post = poster(url, token);
  return {
    post,
    createQueue: (extra: object = {}, branch = 'main') => post('/createQueue', { repo: REPO, targetBranch: branch, ...extra }),
    updateQueue: (extra: object, branch = 'main') => post('/updateQueue', { repo: REPO, targetBranch: branch, ...extra }),
    getQueue: (branch = 'main') => post('/getQueue', { repo: REPO, targetBranch: branch }),
    deleteQueue: (branch = 'main') => post('/deleteQueue', { repo: REPO, targetBranch: branch }),
    submit: (number: number | string, extra: object = {}, branch = 'main') =>
      post('/submitPullRequest', { repo: REPO, targetBranch: branch, pr: { number }, ...extra }),
    cancel: (number: number, branch = 'main') => post('/cancelPullRequest', { repo: REPO, targetBranch: branch, pr: { number } }),
    restart: (number: number, branch = 'main') => post('/restartTestsOnPullRequest', { repo: REPO, targetBranch: branch, pr: { number } }),
    getPr: (number: number, branch = 'main') => post('/getSubmittedPullRequest', { repo: REPO, targetBranch: branch, pr: { number } }),
    setTargets: (number: number, impactedTargets: unknown, extra: object = {}, branch = 'main') =>
      post('/setImpactedTargets', { repo: REPO, targetBranch: branch, pr: { number, ...extra }, impactedTargets }),
  };
};
