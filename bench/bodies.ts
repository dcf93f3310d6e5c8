import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { procKb, startEmbeddedServer } from './support/embedded-server';
import { postOk } from './support/http';
import { positiveIntFromEnv } from './support/settings';
import { targetNames } from './targets';

/**
 * `npm run bench -- bodies [capMiB...]`: BENCH_CLIENTS (100) clients each POST one ~19 MiB
 * setImpactedTargets body at the same moment, into the embedded server started once per cap
 * (RAILYARD_BODY_MIB_IN_FLIGHT; default caps: 100000, i.e. none, and 64, the default). A client
 * answered 503 waits its Retry-After and sends again, so every upload lands in the end. Prints per
 * cap the server's peak RSS (VmHWM), the 503s, and the time until all uploads were stored.
 *
 *   BENCH_CLIENTS       concurrent uploads (100)
 *   BENCH_TARGETS       names per upload (485000, ~19 MiB)
 */

const REPO = { host: 'bench.local', owner: 'acme', name: 'bodies' };
const progress = (line: string): void => void process.stderr.write(`[bench bodies] ${line}\n`);
const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;
const MIB = 1024 * 1024;

/**
 * One POST of the body over its own connection; the status and Retry-After. A refused upload is
 * answered before its body is through, and node then closes the connection (the rest of the body
 * is never read), so the write fails after the answer came: that error is expected. Status 0 means
 * the connection broke before any answer.
 */
const send = (url: string, token: string, body: Buffer): Promise<{ status: number; retryAfter: number }> =>
  new Promise((resolve) => {
    const req = http.request(
      `${url}/v1/setImpactedTargets`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-token': token },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 1) }));
      },
    );
    req.on('error', () => resolve({ status: 0, retryAfter: 1 }));
    req.end(body);
  });

/** Uploads until the server takes it; how many 503s it got on the way. */
const upload = async (url: string, token: string, body: Buffer): Promise<number> => {
  for (let refused = 0; ; refused++) {
    const { status, retryAfter } = await send(url, token, body);
    if (status === 200) return refused;
    if (status !== 503 && status !== 0) throw new Error(`setImpactedTargets answered ${status}`);
    await new Promise((r) => setTimeout(r, retryAfter * 1000));
  }
};

const measure = async (capMiB: number, clients: number, body: Buffer): Promise<object> => {
  const dir = await makeTempDir('railyard-bench-bodies-');
  const token = randomBytes(24).toString('base64url');
  await createRepoWithCommits(path.join(dir, 'git'), REPO, { files: { 'README.md': '# b\n' } });
  const server = await startEmbeddedServer(dir, token, { RAILYARD_BODY_MIB_IN_FLIGHT: String(capMiB) });
  try {
    await postOk(server.url, '/createQueue', token, { repo: REPO, targetBranch: 'main', mode: 'parallel' });
    const pid = server.proc.pid as number;
    const rssBefore = procKb(pid, 'VmRSS');
    progress(`cap ${capMiB} MiB: ${clients} uploads of ${round(body.length / MIB, 1)} MiB at once`);
    const t0 = performance.now();
    const refusals = await Promise.all(Array.from({ length: clients }, () => upload(server.url, token, body)));
    const seconds = (performance.now() - t0) / 1000;
    return {
      name: 'bodies-in-flight',
      capMiB,
      clients,
      bodyMiB: round(body.length / MIB, 2),
      rssBeforeMiB: round(rssBefore / 1024),
      peakRssMiB: round(procKb(pid, 'VmHWM') / 1024),
      refused503: refusals.reduce((a, b) => a + b, 0),
      secondsUntilAllStored: round(seconds, 1),
    };
  } finally {
    await server.stop();
    await removeTempDir(dir);
  }
};

export const run = async function* (args: string[]): AsyncIterable<object> {
  const clients = positiveIntFromEnv('BENCH_CLIENTS', 100);
  const names = positiveIntFromEnv('BENCH_TARGETS', 485_000);
  const caps = args.length > 0 ? args.map(Number) : [100_000, 64];
  const body = Buffer.from(
    JSON.stringify({ repo: REPO, targetBranch: 'main', pr: { number: 1, sha: 'a'.repeat(40) }, impactedTargets: targetNames(names, 1) }),
  );
  if (body.length > 20 * MIB) throw new Error(`a body of ${body.length} bytes is over the 20 MiB limit: lower BENCH_TARGETS`);
  for (const cap of caps) yield await measure(cap, clients, body);
};
