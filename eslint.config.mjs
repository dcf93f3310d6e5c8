import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Boundaries (docs/architecture.md, "Boundaries"): libraries never import apps, the domain does no
// I/O and depends on no other package, and the CLI reaches other parts only through libraries.
const APPS = ['api', 'cli', 'engine', 'projector', 'server', 'simulator'];
const appImports = {
  group: [...APPS.map((app) => `@railyard/${app}`), ...APPS.map((app) => `@railyard/${app}/**`), '**/apps/**'],
  message: 'A library never imports an app (docs/architecture.md, "Boundaries"); move what it needs into a library.',
};
const IO_MODULES = [
  'fs',
  'fs/*',
  'child_process',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'dns',
  'tls',
  'worker_threads',
  'cluster',
  'os',
  'process',
  'readline',
  'zlib',
  'stream',
  'stream/*',
  'timers',
  'timers/*',
  'perf_hooks',
  'v8',
  'vm',
];
const domainIo = {
  group: [
    ...IO_MODULES.flatMap((m) => [m, `node:${m}`]),
    'ioredis',
    'express',
    'express/**',
    'better-sqlite3',
    'pg',
    'pg/**',
    '@kurrent/**',
    'winston',
    'prom-client',
    '@octokit/**',
  ],
  message: 'libs/domain is pure: no I/O (docs/architecture.md, "Boundaries"); do it in an adapter and pass the result in.',
};
// Relative paths reach another package too ('../../eventstore/src/…'): named by the package's folder.
const LIBS = [
  'api-schema',
  'auth',
  'ci',
  'eventstore',
  'githost',
  'github',
  'observability',
  'readmodels',
  'runtime',
  'testhealth',
  'testkit',
];
const domainPackages = {
  group: ['@railyard/*', '!@railyard/domain', ...LIBS.map((lib) => `**/${lib}/**`)],
  message: 'libs/domain depends on no other Railyard package (docs/architecture.md, "Boundaries").',
};
const cliReach = {
  group: ['@railyard/api', '@railyard/api/**', '@railyard/projector', '@railyard/projector/**', '@railyard/engine', '@railyard/server'],
  message: 'The CLI reaches other parts only through libraries (docs/architecture.md, "Boundaries").',
};
const testkit = {
  group: ['@railyard/testkit', '@railyard/testkit/**', '**/libs/testkit/**'],
  message: 'libs/testkit is for tests only: production code never imports it.',
};
const restrict = (...patterns) => ['error', { patterns }];

// The environment is read once (docs/architecture.md, "Configuration"): by libs/runtime's loadConfig and
// the other config modules, and by entry points. The rest are handed plain values.
const ENV_READERS = [
  'libs/runtime/src/config.ts',
  'libs/github/src/settings.ts',
  'apps/cli/src/config.ts',
  'apps/*/src/main.ts',
  // Child processes inherit the environment (PATH, HOME, git's own variables); nothing is read from it here.
  'libs/githost/src/local/git.ts',
  'libs/ci/src/runner/local-ci-runner.ts',
  // The logger's default level for tools and tests that create one without a configuration.
  'libs/observability/src/logger.ts',
  // Test helpers: a child process's entry point, and the CLI run as a child process.
  'libs/ci/src/runner/testing/runner-process.ts',
  'apps/cli/src/testing.ts',
  // Test helper: where the read-model tests find Redis (RAILYARD_TEST_REDIS_URL).
  'libs/readmodels/src/testing/redis.ts',
];
const envRead = {
  object: 'process',
  property: 'env',
  message: 'Read the environment in a config module (libs/runtime loadConfig) or an entry point, and pass plain values in.',
};
const TESTS = ['**/*.test.ts', '**/*.contract.ts'];
/** Test files and test helpers (folders named testing/ or fixtures). */
const TEST_SUPPORT = [...TESTS, '**/testing/**', '**/fixtures.ts', '**/fixtures/**', 'libs/testkit/**'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**', 'dist/**', '**/dist/**', 'dist-cli/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  { files: ['libs/**/*.ts'], rules: { 'no-restricted-imports': restrict(appImports) } },
  { files: ['libs/**/*.ts'], ignores: TEST_SUPPORT, rules: { 'no-restricted-imports': restrict(appImports, testkit) } },
  { files: ['apps/**/*.ts'], ignores: TEST_SUPPORT, rules: { 'no-restricted-imports': restrict(testkit) } },
  { files: ['libs/domain/**/*.ts'], ignores: TESTS, rules: { 'no-restricted-imports': restrict(appImports, domainIo, domainPackages) } },
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: [...TESTS, ...ENV_READERS],
    rules: { 'no-restricted-properties': ['error', envRead] },
  },
  { files: ['apps/cli/**/*.ts'], ignores: TESTS, rules: { 'no-restricted-imports': restrict(cliReach, testkit) } },
  // Formatting is prettier's (`npm run lint` runs `prettier --check`); eslint keeps to correctness.
  prettier,
);
