import { ciSettingsFromEnv } from './settings';

describe('ciSettingsFromEnv', () => {
  it('when nothing is set, then checks run in bubblewrap without network', () => {
    expect(ciSettingsFromEnv({})).toMatchObject({ sandbox: 'bwrap', network: 'none', hiddenPaths: [] });
  });

  it('when the sandbox is turned off and the network on, then the settings say so', () => {
    expect(ciSettingsFromEnv({ RAILYARD_CI_SANDBOX: 'off', RAILYARD_CI_NETWORK: 'host' })).toMatchObject({
      sandbox: 'off',
      network: 'host',
    });
  });

  it('when a value is not one of the documented ones, then the settings are refused with the variable named', () => {
    expect(() => ciSettingsFromEnv({ RAILYARD_CI_SANDBOX: 'none' })).toThrow(/RAILYARD_CI_SANDBOX must be one of bwrap, off/);
    expect(() => ciSettingsFromEnv({ RAILYARD_CI_NETWORK: 'on' })).toThrow(/RAILYARD_CI_NETWORK must be one of none, host/);
  });

  it('when the API tokens live in a file, then that file is hidden from checks', () => {
    expect(ciSettingsFromEnv({ RAILYARD_API_TOKENS_FILE: '/etc/railyard/tokens' }).hiddenPaths).toEqual(['/etc/railyard/tokens']);
  });
});
