import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { procKb, startEmbeddedServer } from './support/embedded-server';
import { postJson, postOk } from './support/http';
import { positiveIntFromEnv } from './support/settings';

/**
 * `npm run bench -- targets`: one setImpactedTargets upload of ~20 MiB (500,000 target names) into
 * the embedded server, run as its own OS process so its memory is its own. Prints, per upload, the
 * time from sending to the 200 and the server's peak RSS growth (VmHWM from /proc).
 *
 *   BENCH_TARGETS       names per upload (500000)
 *   BENCH_UPLOADS       uploads, each with different names (3)
 */

const REPO = { host: 'bench.local', owner: 'acme', name: 'targets' };
const BODY_LIMIT = 20 * 1024 * 1024;
const progress = (line: string): void => void process.stderr.write(`[bench targets] ${line}\n`);
const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;

/** `count` distinct names of equal length, as a build system's labels look; `salt` makes each upload different. */
export const targetNames = (count: number, salt: number, length = 38): string[] =>
  Array.from({ length: count }, (_, i) => `//svc${i % 997}/pkg${(i * 7919) % 10_007}:t${salt}_${i}`.padEnd(length, '_'));

export const run = async function* (): AsyncIterable<object> {
  const count = positiveIntFromEnv('BENCH_TARGETS', 500_000);
  const uploads = positiveIntFromEnv('BENCH_UPLOADS', 3);
  const dir = await makeTempDir('railyard-bench-targets-');
  const token = randomBytes(24).toString('base64url');
  await createRepoWithCommits(path.join(dir, 'git'), REPO, { files: { 'README.md': '# t\n' } });
  const server = await startEmbeddedServer(dir, token);
  try {
    await postOk(server.url, '/createQueue', token, { repo: REPO, targetBranch: 'main', mode: 'parallel' });
    for (let u = 1; u <= uploads; u++) {
      const body = JSON.stringify({
        repo: REPO,
        targetBranch: 'main',
        pr: { number: u, sha: 'a'.repeat(39) + String(u % 10) },
        impactedTargets: targetNames(count, u),
      });
      if (body.length > BODY_LIMIT) throw new Error(`body of ${body.length} bytes is over the 20 MiB limit`);
      const pid = server.proc.pid as number;
      const hwmBefore = procKb(pid, 'VmHWM');
      const rssBefore = procKb(pid, 'VmRSS');
      progress(`upload ${u}: ${count} targets, ${round(body.length / 1024 / 1024, 2)} MiB`);
      const t0 = performance.now();
      const { status, text } = await postJson(server.url, '/setImpactedTargets', token, body);
      const ms = performance.now() - t0;
      if (status !== 200) throw new Error(`setImpactedTargets answered ${status}: ${text.slice(0, 300)}`);
      yield {
        name: 'targets-upload',
        upload: u,
        targets: count,
        bodyMiB: round(body.length / 1024 / 1024, 2),
        ms: round(ms, 0),
        rssBeforeMiB: round(rssBefore / 1024),
        peakRssMiB: round(procKb(pid, 'VmHWM') / 1024),
        peakGrowthMiB: round((procKb(pid, 'VmHWM') - Math.max(hwmBefore, rssBefore)) / 1024),
        answer: JSON.parse(text) as object,
      };
    }
  } finally {
    await server.stop();
    await removeTempDir(dir);
  }
};
