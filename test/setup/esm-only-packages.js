// Which installed dependencies ship only ES modules (docs/decisions.md D80). Jest runs our tests as
// CommonJS, so these must be transformed to CommonJS and resolved with the `import` condition; every
// other package in node_modules stays untouched. The list is computed from the workspaces' declared
// runtime dependencies, so a new ESM-only package is picked up without editing the jest config.
const fs = require('node:fs');
const path = require('node:path');

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/** The directory of package `name` as Node would find it from `fromDir`, or null. */
const packageDir = (name, fromDir) => {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
};

const hasRequireCondition = (exports) =>
  exports !== null && typeof exports === 'object' && Object.entries(exports).some(([k, v]) => k === 'require' || hasRequireCondition(v));

const isEsmOnly = (pkg) => pkg.type === 'module' && !hasRequireCondition(pkg.exports);

const workspaceDirs = (rootDir) => {
  const root = readJson(path.join(rootDir, 'package.json'));
  const dirs = [rootDir];
  for (const pattern of root.workspaces ?? []) {
    const parent = path.join(rootDir, pattern.replace(/\/\*$/, ''));
    for (const entry of fs.readdirSync(parent)) {
      if (fs.existsSync(path.join(parent, entry, 'package.json'))) dirs.push(path.join(parent, entry));
    }
  }
  return dirs;
};

/** Directories of the ESM-only packages reachable from the workspaces' runtime dependencies. */
const esmOnlyPackageDirs = (rootDir) => {
  const seen = new Set();
  const found = new Set();
  const visit = (dir, deps) => {
    for (const name of Object.keys(deps ?? {})) {
      const pkgDir = packageDir(name, dir);
      if (pkgDir === null || seen.has(pkgDir)) continue;
      seen.add(pkgDir);
      const pkg = readJson(path.join(pkgDir, 'package.json'));
      if (isEsmOnly(pkg)) found.add(fs.realpathSync(pkgDir));
      visit(pkgDir, { ...pkg.dependencies, ...pkg.optionalDependencies });
    }
  };
  for (const dir of workspaceDirs(rootDir)) {
    const pkg = readJson(path.join(dir, 'package.json'));
    visit(dir, pkg.dependencies);
  }
  return [...found].sort();
};

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A transformIgnorePatterns entry: every file under a node_modules directory, except in `dirs`. */
const ignoreNodeModulesExcept = (dirs) =>
  dirs.length === 0 ? '/node_modules/' : `^(?!(${dirs.map(escapeRegExp).join('|')})/).*/node_modules/`;

module.exports = { esmOnlyPackageDirs, ignoreNodeModulesExcept };
