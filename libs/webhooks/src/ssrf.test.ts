import { AddressPolicy, AddressRefused, resolveChecked, urlProblem } from './ssrf';

const strict = new AddressPolicy();

describe('urlProblem', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://localhost:8080/',
    'http://10.1.2.3/',
    'http://172.20.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[fd12:3456::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
  ])('when the URL is %s, then it is refused as not public', (url) => {
    expect(urlProblem(url, strict)).toMatch(/not a public address/);
  });

  it.each(['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url', 'https://user:pw@example.com/'])(
    'when the URL is %s, then it is refused for its form',
    (url) => {
      expect(urlProblem(url, strict)).toBeDefined();
    },
  );

  it('when the URL is public https, then it passes', () => {
    expect(urlProblem('https://hooks.example.com/railyard', strict)).toBeUndefined();
    expect(urlProblem('http://93.184.216.34/', strict)).toBeUndefined();
  });

  it('when the operator allows a network, then addresses in it pass and others still do not', () => {
    const policy = new AddressPolicy(['127.0.0.1/32']);
    expect(urlProblem('http://127.0.0.1:9000/', policy)).toBeUndefined();
    expect(urlProblem('http://127.0.0.2/', policy)).toMatch(/not a public address/);
    expect(urlProblem('http://10.0.0.1/', policy)).toMatch(/not a public address/);
  });

  it('when an allowed network is not a CIDR, then the policy refuses to start', () => {
    expect(() => new AddressPolicy(['nonsense'])).toThrow(/not a network/);
    expect(() => new AddressPolicy(['10.0.0.0/33'])).toThrow(/not a network/);
  });
});

describe('resolveChecked', () => {
  it('when a name resolves to a public and a private address, then it is refused', async () => {
    const lookup = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    await expect(resolveChecked('https://hooks.example.com/', strict, lookup)).rejects.toBeInstanceOf(AddressRefused);
  });

  it('when a name resolves to public addresses only, then the first is the one to connect to', async () => {
    const lookup = async () => [{ address: '93.184.216.34', family: 4 }];
    await expect(resolveChecked('https://hooks.example.com/', strict, lookup)).resolves.toEqual({ address: '93.184.216.34', family: 4 });
  });
});
