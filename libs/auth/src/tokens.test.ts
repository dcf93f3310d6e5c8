import { parseTokenList, TokenRegistry } from './tokens';

describe('TokenRegistry.identifyOn', () => {
  const registry = new TokenRegistry(parseTokenList('ci:ci-secret-0123456789:write,ops:ops-secret-0123456789:admin'));

  it('when a connection presents the same secret again, then it is the same token', () => {
    const socket = {};
    expect(registry.identifyOn(socket, 'ci-secret-0123456789')?.name).toBe('ci');
    expect(registry.identifyOn(socket, 'ci-secret-0123456789')?.name).toBe('ci');
  });

  it('when a connection switches to another or a wrong secret, then that secret alone decides', () => {
    const socket = {};
    expect(registry.identifyOn(socket, 'ci-secret-0123456789')?.name).toBe('ci');
    expect(registry.identifyOn(socket, 'ops-secret-0123456789')?.name).toBe('ops');
    expect(registry.identifyOn(socket, 'ops-secret-0123456780')).toBeUndefined();
    expect(registry.identifyOn(socket, 'ci-secret-012345678')).toBeUndefined();
  });

  it('when another connection presents an unknown secret, then it is refused whatever the first one proved', () => {
    registry.identifyOn({}, 'ci-secret-0123456789');
    expect(registry.identifyOn({}, 'not-a-known-secret-000')).toBeUndefined();
  });
});
