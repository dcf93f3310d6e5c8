'use strict';
// What the production build reads (docs/operations.md, "Build"): every workspace's src/ and bin/, the
// manifests and the lock. `npm start` asks `isStale` before it runs the build output, so this list is
// the one place that says what a build depends on.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const WORKSPACE_GROUPS = ['apps', 'libs'];
const STAMP = '.build-stamp';

/** Test code stays out of the build: jest runs it from the sources. */
const isTestFile = (name) => /\.(test|int\.test|e2e\.test)\.ts$/.test(name);

/** The workspace directories (relative to the root), e.g. `libs/domain`, in a stable order. */
const workspaces = (root = ROOT) =>
  WORKSPACE_GROUPS.flatMap((group) =>
    fs
      .readdirSync(path.join(root, group), { withFileTypes: true })
      .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, group, e.name, 'package.json')))
      .map((e) => `${group}/${e.name}`)
      .sort(),
  );

/** Every file under `dir` (relative paths from `root`), test files left out; directories too when asked. */
const walk = (root, dir, withDirs = false) => {
  const out = [];
  const visit = (rel) => {
    if (withDirs) out.push(rel);
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) visit(child);
      else if (entry.isFile() && !isTestFile(entry.name)) out.push(child);
    }
  };
  if (fs.existsSync(path.join(root, dir))) visit(dir);
  return out;
};

/** The files (and, for deletions, directories) a build depends on. */
const inputs = (root = ROOT) => [
  'package.json',
  'package-lock.json',
  '.npmrc',
  ...workspaces(root).flatMap((ws) => [`${ws}/package.json`, ...walk(root, `${ws}/src`, true), ...walk(root, `${ws}/bin`, true)]),
];

const mtimeOf = (file) => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
};

/**
 * True when `outDir` holds no finished build or any input changed after it was made. Directory
 * times are inputs too, so a deleted or renamed source also counts as a change.
 */
const isStale = (outDir, root = ROOT) => {
  const built = mtimeOf(path.join(outDir, STAMP));
  if (built === undefined) return true;
  return inputs(root).some((rel) => (mtimeOf(path.join(root, rel)) ?? 0) > built);
};

module.exports = { ROOT, STAMP, isStale, isTestFile, walk, workspaces };
