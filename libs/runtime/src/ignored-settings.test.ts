import { loadConfig } from './config';
import { ignoredSettings } from './ignored-settings';

describe('ignored settings', () => {
  it('when a retired setting is set, then it is named with what replaced it', () => {
    expect(ignoredSettings({ RAILYARD_ENGINE_THREAD: 'worker' })).toEqual([
      { name: 'RAILYARD_ENGINE_THREAD', why: expect.stringContaining('API thread') },
    ]);
  });

  it('when a setting is misspelt, then it is named; its value is not', () => {
    const ignored = ignoredSettings({ RAILYARD_CI_NICNESS: '5', RAILYARD_DATA_DIR: '/tmp/x' });
    expect(ignored).toEqual([{ name: 'RAILYARD_CI_NICNESS', why: expect.stringContaining('.env.example') }]);
    expect(JSON.stringify(ignored)).not.toContain('5');
  });

  it('when only settings some process reads are set (server, CLI, GitHub App, a check, the tests), then none is named', () => {
    const env = {
      RAILYARD_DATA_DIR: '/tmp/x',
      RAILYARD_CI_NICENESS: '5',
      RAILYARD_URL: 'http://127.0.0.1:8080',
      RAILYARD_TOKEN: 'secret',
      RAILYARD_GITHUB_APP_ID: '1',
      RAILYARD_CHECK: 'test',
      RAILYARD_TEST_REDIS_URL: 'redis://127.0.0.1:6379',
      PATH: '/usr/bin',
    };
    expect(ignoredSettings(env)).toEqual([]);
  });

  it('when the configuration is loaded, then it carries them for the process to warn of', () => {
    expect(loadConfig({ RAILYARD_ENGINE_THREAD_NICENESS: '10' }).ignoredSettings.map((s) => s.name)).toEqual([
      'RAILYARD_ENGINE_THREAD_NICENESS',
    ]);
  });
});
