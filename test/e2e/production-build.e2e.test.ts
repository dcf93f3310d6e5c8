import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { shaOf, testHealthClient } from './support/junit';
import { ROOT } from './support/processes';
import { makeWorld, TOKENS, type World } from './support/world';

const run = promisify(execFile);

/**
 * The container image's steps, without a container engine (docs/operations.md "Image"): the build
 * output alone in a directory of its own, `npm ci --omit=dev` there, and the server started from it
 * with plain node. The install skips package scripts so it takes seconds, not the minutes of compiling
 * better-sqlite3 again: the one native addon is copied from this checkout's install (same Node, same
 * machine), where the image's deps stage compiles it.
 */
describe('the production build, installed with production dependencies only', () => {
  let tmp: string;
  let app: string;
  let world: World;
  let server: { proc: ChildProcess; url: string; output: () => string } | undefined;
  let url = '';

  const startServer = async (env: NodeJS.ProcessEnv) => {
    const proc = spawn(process.execPath, ['apps/server/src/main.js'], {
      cwd: app,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', RAILYARD_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the built server did not start:\n${out}`)), 60_000);
      proc.stdout?.on('data', () => {
        const line = out.split('\n').find((l) => l.includes('"message":"railyard listening"'));
        if (line) {
          clearTimeout(timer);
          resolve((JSON.parse(line) as { port: number }).port);
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the built server exited with ${code}:\n${out}`));
      });
    });
    return { proc, url: `http://127.0.0.1:${port}`, output: () => out };
  };

  beforeAll(async () => {
    tmp = await makeTempDir('railyard-image-');
    app = path.join(tmp, 'app');
    await run(process.execPath, [path.join(ROOT, 'scripts/build/build.js'), '--out', app, '--no-links'], { cwd: ROOT });
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: app,
      timeout: 600_000,
    });
    const addon = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    mkdirSync(path.dirname(path.join(app, addon)), { recursive: true });
    copyFileSync(path.join(ROOT, addon), path.join(app, addon));
    world = await makeWorld();
    server = await startServer({ ...world.env, RAILYARD_DATA_DIR: world.dataDir });
    url = server.url;
  }, 900_000);

  afterAll(async () => {
    if (server && server.proc.exitCode === null) {
      const exited = new Promise((resolve) => server?.proc.once('exit', resolve));
      server.proc.kill('SIGTERM');
      await exited;
    }
    if (world) await removeTempDir(world.dataDir);
    if (tmp) await removeTempDir(tmp);
  });

  it('when installed, then neither TypeScript, tsx nor esbuild is there and no source file was shipped', () => {
    for (const pkg of ['tsx', 'esbuild', 'typescript', 'jest']) expect(existsSync(path.join(app, 'node_modules', pkg))).toBe(false);
    expect(existsSync(path.join(app, 'apps/server/src/main.ts'))).toBe(false);
    expect(existsSync(path.join(app, 'apps/server/src/main.js'))).toBe(true);
    const manifest = JSON.parse(readFileSync(path.join(app, 'libs/domain/package.json'), 'utf8')) as { main: string };
    expect(manifest.main).toBe('src/index.js');
  });

  it('when started with plain node, then /healthz answers 200', async () => {
    const res = await request(url).get('/healthz');
    expect(res.status).toBe(200);
  });

  it('when /docs is asked for, then the page copied beside the compiled code is served', async () => {
    const res = await request(url).get('/docs');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<title>Railyard API</title>');
  });

  it('when a JUnit report is uploaded, then the compiled parser worker thread records it', async () => {
    const res = await testHealthClient(url, TOKENS.admin, 'railyard').uploadCases(
      [
        { name: 'adds', outcome: 'pass' },
        { name: 'subtracts', outcome: 'fail' },
      ],
      { sha: shaOf('built'), branch: 'ci/built' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ caseCount: 2, failedCount: 1 });
  });

  it('when the compiled CLI is asked for its version, then it answers without a TypeScript loader', async () => {
    const { stdout } = await run(process.execPath, ['apps/cli/bin/railyard.js', '--version'], { cwd: app });
    expect(stdout.trim()).toBe((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });
});
