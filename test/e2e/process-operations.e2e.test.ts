import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { parseScrape } from '@railyard/testkit';
import { compiled, ROOT, startProcess, type RunningProcess } from './support/processes';
import { REDIS_URL, dropNamespace, uniqueNamespace } from './support/redis';
import { TOKENS, makeWorld, type World } from './support/world';

jest.setTimeout(180_000);

let world: World;
const namespace = uniqueNamespace('procops');
const processes: RunningProcess[] = [];
const started = (p: RunningProcess): RunningProcess => {
  processes.push(p);
  return p;
};

/** Runs an entry point to its end (it is expected to refuse to start) and returns what it printed. */
const runToExit = (script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [compiled(script)], {
      cwd: ROOT,
      env: { ...process.env, JEST_WORKER_ID: '', RAILYARD_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${script} did not exit\n${output}`));
    }, 60_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });

const scrape = async (url: string, pathname: string, token?: string): Promise<string> => {
  const req = request(url).get(pathname);
  const res = await (token ? req.set('x-api-token', token) : req);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  // Right after start too: no NaN sample (prom-client prints `Nan` before its first event-loop reading),
  // and a strict parser reads every line.
  expect(res.text).not.toMatch(/\sNa[Nn]$/im);
  await parseScrape(res.text);
  return res.text;
};

beforeAll(async () => {
  world = await makeWorld();
});
afterAll(async () => {
  for (const p of processes) await p.stop().catch(() => undefined);
  await dropNamespace(namespace);
  await world?.cleanup();
});

describe('the embedded server as a process', () => {
  let first: RunningProcess;
  const tokensFile = () => path.join(world.dataDir, 'tokens');

  it('when its tokens come from RAILYARD_API_TOKENS_FILE, then they work and the secrets are not in its environment', async () => {
    writeFileSync(tokensFile(), `# tokens\nops:${TOKENS.admin}:admin\ndashboard:${TOKENS.read}:read\n`, { mode: 0o600 });
    first = started(
      await startProcess('apps/server/src/main.ts', {
        ...world.env,
        RAILYARD_API_TOKENS: '',
        RAILYARD_API_TOKENS_FILE: tokensFile(),
        RAILYARD_ENGINE: 'on',
      }),
    );
    const res = await request(first.url)
      .post('/v1/getQueue')
      .set('x-api-token', TOKENS.read)
      .send({
        repo: { host: 'git.local', owner: 'acme', name: 'widgets' },
        targetBranch: 'main',
      });
    expect(res.body.error.code).toBe('QUEUE_NOT_FOUND');
    expect((await request(first.url).post('/v1/getQueue').set('x-api-token', TOKENS.write).send({})).status).toBe(401);
    const environ = readFileSync(`/proc/${first.proc.pid}/environ`, 'utf8');
    expect(environ).not.toContain(TOKENS.admin);
    expect(environ).not.toContain(TOKENS.read);
  });

  it('when its metrics are scraped, then the default process_* and nodejs_* series come with the queue series', async () => {
    const text = await scrape(first.url, '/v1/getMergeQueueMetrics', TOKENS.read);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toContain('# TYPE railyard_projection_lag_events gauge');
    // Each family once: the default series are registered once however the process was put together.
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
  });

  it('when a second one is started on the port in use, then it says EADDRINUSE, exits 1 and starts no engine or projector', async () => {
    const second = await runToExit('apps/server/src/main.ts', {
      ...world.env,
      RAILYARD_API_TOKENS: '',
      RAILYARD_API_TOKENS_FILE: tokensFile(),
      RAILYARD_ENGINE: 'on',
      // Its own data dir: the shared one is locked by the first server (D221), and the port is what is tried here.
      RAILYARD_DATA_DIR: path.join(world.dataDir, 'second-server'),
      PORT: String(first.port),
    });
    expect(second.code).toBe(1);
    expect(second.output).toContain('EADDRINUSE');
    expect(second.output).toMatch(/127\.0\.0\.1:\d+ is already in use/);
    expect(second.output).not.toContain("Cannot read properties of null (reading 'port')");
    expect(second.output).not.toContain('"message":"engine started"');
    expect(second.output).not.toContain('"message":"projector subscribing"');
    // The first one is unharmed.
    expect((await request(first.url).get('/healthz')).status).toBe(200);
  });
});

describe('the distributed API', () => {
  it('when started on a port in use, then it says EADDRINUSE and exits 1', async () => {
    const server = processes[0];
    const refused = await runToExit('apps/api/src/main.ts', {
      ...world.env,
      RAILYARD_REDIS_URL: REDIS_URL,
      RAILYARD_REDIS_NAMESPACE: namespace,
      PORT: String(server?.port),
    });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('EADDRINUSE');
    expect(refused.output).toContain('set PORT');
  });

  it('when started without its shared secrets, then it exits 1 naming the variables and leaves none generated in its data dir', async () => {
    const dataDir = path.join(world.dataDir, 'api-without-secrets');
    const refused = await runToExit('apps/api/src/main.ts', {
      ...world.env,
      RAILYARD_DATA_DIR: dataDir,
      RAILYARD_API_TOKENS: '',
      RAILYARD_PAGE_TOKEN_SECRET: '',
      RAILYARD_REDIS_URL: REDIS_URL,
      RAILYARD_REDIS_NAMESPACE: namespace,
      PORT: '0',
    });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('RAILYARD_API_TOKENS or RAILYARD_API_TOKENS_FILE and RAILYARD_PAGE_TOKEN_SECRET');
    expect(refused.output).toContain('RAILYARD_SECRETS_FROM_DATA_DIR=on');
    expect(refused.output).not.toContain('x-api-token');
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('the standalone engine and projector', () => {
  const env = (): NodeJS.ProcessEnv => ({
    ...world.env,
    RAILYARD_REDIS_URL: REDIS_URL,
    RAILYARD_REDIS_NAMESPACE: namespace,
    RAILYARD_SQLITE_FILE: path.join(world.dataDir, 'events.sqlite'),
    RAILYARD_METRICS_PORT: '0',
  });

  it('when RAILYARD_METRICS_PORT is set, then the projector serves its process series and whether it holds the lease on GET /metrics', async () => {
    const projector = started(
      await startProcess('apps/projector/src/main.ts', env(), { ready: /"message":"projector metrics listening"/ }),
    );
    const text = await scrape(projector.url, '/metrics');
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).toContain('# TYPE railyard_projector_lease_held gauge');
    expect((await request(projector.url).get('/healthz')).status).toBe(200);
    expect((await request(projector.url).get('/other')).status).toBe(404);
    expect((await request(projector.url).post('/metrics')).status).toBe(405);
  });

  it('when RAILYARD_METRICS_PORT is set, then the engine serves its process and engine-action series on GET /metrics', async () => {
    const engine = started(await startProcess('apps/engine/src/main.ts', env(), { ready: /"message":"engine metrics listening"/ }));
    const text = await scrape(engine.url, '/metrics');
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toContain('# TYPE railyard_engine_action_duration_seconds histogram');
  });

  it('when the metrics port is in use, then the engine says so and exits before it takes any queue', async () => {
    const projectorPort = processes[processes.length - 1]?.port;
    const refused = await runToExit('apps/engine/src/main.ts', { ...env(), RAILYARD_METRICS_PORT: String(projectorPort) });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('EADDRINUSE');
    expect(refused.output).toContain('RAILYARD_METRICS_PORT');
    expect(refused.output).not.toContain('"message":"engine started"');
  });
});
