import path from 'node:path';
import { makeTempDir } from '@railyard/testkit';
import { compareInterleaved } from './support/load';
import { startChild } from './support/processes';
import { BENCH_REPO } from './support/git-fixture';

(async () => {
  const dir = await makeTempDir('expd-');
  const baseline = await startChild({ script: 'bench/support/baseline-server.ts', env: {}, logFile: path.join(dir, 'b.log'), ready: /baseline listening/ });
  for (const variant of (process.env.VARIANTS ?? 'full').split(',')) {
    const server = await startChild({ script: 'bench/_exp-server.ts', env: { VARIANT: variant }, logFile: path.join(dir, `${variant}-${Date.now()}.log`), ready: /railyard listening/ });
    const body = (n: number) => JSON.stringify({ repo: BENCH_REPO, targetBranch: 'main', pr: { number: n } });
    const sample = await (await fetch(`${server.url}/v1/getSubmittedPullRequest`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': '0123456789abcdef0123' }, body: body(1) })).text();
    await fetch(`${baseline.url}/payload`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: sample });
    let k = 0;
    const r = await compareInterleaved({
      baseline: { url: `${baseline.url}/bench`, headers: {}, nextBody: () => body(1), cpuSeconds: () => baseline.cpuSeconds() },
      subject: { url: `${server.url}/v1/getSubmittedPullRequest`, headers: { 'x-api-token': '0123456789abcdef0123' }, nextBody: () => body((k++ % 50) + 1), cpuSeconds: () => server.cpuSeconds() },
      connections: 10, seconds: 8, rounds: 4, warmupSeconds: 1,
    });
    console.log(variant, r.subject.reqPerSec, r.baseline.reqPerSec, (r.subject.reqPerSec / r.baseline.reqPerSec).toFixed(3), 'cpu', r.subject.cpuMsPerRequest, r.baseline.cpuMsPerRequest, (r.baseline.cpuMsPerRequest / r.subject.cpuMsPerRequest).toFixed(3));
    await server.stop();
  }
  await baseline.stop();
})();
