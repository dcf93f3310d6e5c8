'use strict';
// `npm run build`: the production build (docs/operations.md "Build", docs/decisions.md D90).
// esbuild turns every workspace's TypeScript into CommonJS file by file (no bundling, no type check:
// `npm run typecheck` does that), and the output directory becomes a tree that installs and runs on
// its own: the same workspace layout, each manifest's `main` pointing at the compiled file, the lock
// copied as it is. `npm ci --omit=dev` in that tree is what the container image does.
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');
const { ROOT, STAMP, walk, workspaces } = require('./sources');
const { buildCli } = require('./cli');

/** Only the sources need these: they load TypeScript at run time, which the build output never does. */
const SOURCE_ONLY_DEPENDENCIES = ['tsx'];
/** The root scripts of the output tree: each process's entry point, compiled. */
const ENTRY_POINTS = {
  start: 'apps/server/src/main.js',
  'start:api': 'apps/api/src/main.js',
  'start:projector': 'apps/projector/src/main.js',
  'start:engine': 'apps/engine/src/main.js',
};
/** Written first: a directory holding it may be emptied by the next build, and no other. */
const MARKER = '.railyard-build';
/** The node version the output must run on: the lowest the root manifest's `engines` allows. */
const TARGET = 'node20';

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const writeJson = (file, value) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
};
const toJs = (file) => file.replace(/\.ts$/, '.js');
const withoutSourceOnly = (deps) =>
  deps && Object.fromEntries(Object.entries(deps).filter(([name]) => !SOURCE_ONLY_DEPENDENCIES.includes(name)));

/** Empties `outDir` only if it is missing, empty or a previous build: never someone's directory. */
const prepareOutDir = (outDir) => {
  if (fs.existsSync(outDir) && fs.readdirSync(outDir).length > 0 && !fs.existsSync(path.join(outDir, MARKER))) {
    throw new Error(`${outDir} is not empty and holds no earlier build; refusing to replace it`);
  }
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, MARKER), 'made by npm run build; replaced by the next build\n');
};

/** A workspace manifest for the output: compiled entry points, no development-only fields. */
const workspaceManifest = (pkg, outWs) => {
  const { devDependencies: _dev, types: _types, ...rest } = pkg;
  const out = { ...rest, dependencies: withoutSourceOnly(pkg.dependencies) };
  if (out.dependencies === undefined) delete out.dependencies;
  if (pkg.exports !== undefined) throw new Error(`${pkg.name}: package.json exports are not handled by the build yet`);
  if (pkg.main !== undefined) {
    out.main = toJs(pkg.main);
    if (!fs.existsSync(path.join(outWs, out.main))) throw new Error(`${pkg.name}: main ${out.main} was not built`);
  }
  return out;
};

const rootManifest = (pkg) => {
  const { devDependencies: _dev, scripts: _scripts, ...rest } = pkg;
  const scripts = Object.fromEntries(Object.entries(ENTRY_POINTS).map(([name, file]) => [name, `node ${file}`]));
  return { ...rest, scripts, dependencies: withoutSourceOnly(pkg.dependencies) };
};

/** A package's command for the output tree: the source one without the TypeScript loader. */
const compiledBin = (source, name) => {
  const lines = source.split('\n').filter((line) => !/^\s*\/\//.test(line) && !/require\(['"]tsx(\/[\w/]+)?['"]\)/.test(line));
  const text = lines.join('\n').replace(/\.ts(['"])/g, '.js$1');
  if (/tsx|\.ts['"]/.test(text)) throw new Error(`${name}: cannot make a compiled command of it`);
  return text.replace(/^(#!.*\n)?/, `$1// The compiled \`${name}\` command, made by npm run build.\n`);
};

/**
 * For running the output inside this checkout (`npm start`) without a second install: `@railyard/*`
 * found in the output's own node_modules, as `npm ci` there would link them, each workspace's nested
 * node_modules (versions that differ from the hoisted ones) linked from the checkout's, and every
 * other package found in the checkout's node_modules above.
 */
const linkWorkspaces = (outDir, wss) => {
  if (path.relative(ROOT, outDir).startsWith('..')) throw new Error('links need the output inside the checkout (or --no-links)');
  for (const ws of wss) {
    const nested = path.join(ROOT, ws, 'node_modules');
    if (fs.existsSync(nested)) fs.symlinkSync(path.relative(path.join(outDir, ws), nested), path.join(outDir, ws, 'node_modules'), 'dir');
  }
  for (const ws of wss) {
    const { name } = readJson(path.join(outDir, ws, 'package.json'));
    const link = path.join(outDir, 'node_modules', name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.relative(path.dirname(link), path.join(outDir, ws)), link, 'dir');
  }
};

const build = ({ outDir = path.join(ROOT, 'dist'), links = true } = {}) => {
  const started = new Date();
  const out = path.resolve(outDir);
  prepareOutDir(out);
  const wss = workspaces();
  const sources = wss.flatMap((ws) => walk(ROOT, `${ws}/src`));
  const typescript = sources.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  esbuild.buildSync({
    entryPoints: typescript.map((f) => path.join(ROOT, f)),
    outdir: out,
    outbase: ROOT,
    format: 'cjs',
    platform: 'node',
    target: TARGET,
    sourcemap: true,
    logLevel: 'warning',
  });
  // HTML, worker scripts, JSON schemas: read from beside the code at run time (`__dirname`).
  for (const asset of sources.filter((f) => !f.endsWith('.ts'))) {
    fs.mkdirSync(path.dirname(path.join(out, asset)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, asset), path.join(out, asset));
  }
  for (const ws of wss) {
    const pkg = readJson(path.join(ROOT, ws, 'package.json'));
    writeJson(path.join(out, ws, 'package.json'), workspaceManifest(pkg, path.join(out, ws)));
    for (const [name, file] of Object.entries(pkg.bin ?? {})) {
      const target = path.join(out, ws, file);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, compiledBin(fs.readFileSync(path.join(ROOT, ws, file), 'utf8'), name), { mode: 0o755 });
    }
  }
  writeJson(path.join(out, 'package.json'), rootManifest(readJson(path.join(ROOT, 'package.json'))));
  for (const file of ['package-lock.json', '.npmrc']) {
    if (fs.existsSync(path.join(ROOT, file))) fs.copyFileSync(path.join(ROOT, file), path.join(out, file));
  }
  if (links) linkWorkspaces(out, wss);
  // The one-file CLI the server hands to CI jobs (GET /cli/railyard.cjs, docs/ci-integration.md).
  buildCli(path.join(out, 'cli', 'railyard.cjs'));
  // Dated to the start: a source saved while the build ran is newer, so the next start rebuilds.
  fs.writeFileSync(path.join(out, STAMP), `${started.toISOString()}\n`);
  fs.utimesSync(path.join(out, STAMP), started, started);
  return { outDir: out, files: typescript.length };
};

const parseArgs = (argv) => {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && argv[i + 1]) opts.outDir = argv[++i];
    else if (argv[i] === '--no-links') opts.links = false;
    else throw new Error(`usage: build.js [--out DIR] [--no-links] (unknown argument ${argv[i]})`);
  }
  return opts;
};

if (require.main === module) {
  try {
    const t0 = process.hrtime.bigint();
    const { outDir, files } = build(parseArgs(process.argv.slice(2)));
    const ms = Number((process.hrtime.bigint() - t0) / 1_000_000n);
    console.error(`built ${files} files into ${path.relative(process.cwd(), outDir) || '.'} in ${ms} ms`);
  } catch (err) {
    console.error(`build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}

module.exports = { build };
