const { esmOnlyPackageDirs, ignoreNodeModulesExcept } = require('./test/setup/esm-only-packages');

// Three tiers: unit (pure, in-memory), integration (real SQLite, Redis, git), e2e (real processes over HTTP).
// ESM-only dependencies are compiled to CommonJS like our own sources (docs/decisions.md D80).
const swc = (syntax) => ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax } } }];
const transform = { '^.+\\.ts$': swc('typescript'), '^.+\\.js$': swc('ecmascript') };
const base = {
  transform,
  transformIgnorePatterns: [ignoreNodeModulesExcept(esmOnlyPackageDirs(__dirname))],
  resolver: '<rootDir>/test/setup/jest-resolver.js',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  // The production build (npm run build) repeats every workspace's manifest; tests use the sources.
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};
module.exports = {
  // Three suites at a time on 2 cores (D303, after D267's two): most suites wait on engine ticks,
  // checks, git and databases far more than they compute.
  maxWorkers: 3,
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/{libs,apps,bench}/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.int\\.test\\.ts$', '\\.e2e\\.test\\.ts$', '/node_modules/'],
    },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/{libs,apps,test}/**/*.int.test.ts', '<rootDir>/test/contract/**/*.test.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/setup/slow-tier-timeout.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
      // Builds dist/ when stale: e2e processes run compiled, as in production (D300).
      globalSetup: '<rootDir>/test/setup/e2e-global-setup.ts',
      // Every answer an e2e suite gets is held against Trunk's published contract (docs/api.md, "Trunk's contract").
      setupFilesAfterEnv: ['<rootDir>/test/setup/slow-tier-timeout.ts', '<rootDir>/test/e2e/support/trunk-hook.ts'],
    },
  ],
};
