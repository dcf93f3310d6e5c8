// Integration and e2e tests drive real git, databases and processes: on a busy 2-core machine jest's
// 5 s default fails them for the machine's speed, not for a fault. jest-circus reads only the global
// `testTimeout` (a project's own is ignored), so the two tiers set theirs here; a file's own
// jest.setTimeout still wins.
const e2e = /\.e2e\.test\.ts$/.test(expect.getState().testPath ?? '');
jest.setTimeout(e2e ? 120_000 : 60_000);
