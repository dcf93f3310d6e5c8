import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent. An endpoint URL is chosen by whoever holds an admin token, but the
 * request leaves from inside the operator's network: without this check it could reach the cloud's
 * metadata service, the database, or anything else only the server can see (SSRF). Only http(s),
 * and no address that is not public unless the operator allows its network
 * (RAILYARD_WEBHOOKS_ALLOW_NETWORKS, docs/webhooks.md "Addresses").
 */
const NOT_PUBLIC: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this" network
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['100::', 64, 'ipv6'], // discard
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['fc00::', 7, 'ipv6'], // unique local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
];

const notPublic = new BlockList();
for (const [net, prefix, family] of NOT_PUBLIC) notPublic.addSubnet(net, prefix, family);

export class AddressRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressRefused';
  }
}

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96), which is what is reached. */
const embeddedV4 = (address: string): string | undefined => {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const hi = parseInt(hex[1] as string, 16);
  const lo = parseInt(hex[2] as string, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
};

/** Networks the operator allows besides the public internet, from CIDRs like `127.0.0.1/32` or `10.0.0.0/8`. */
export class AddressPolicy {
  private readonly allowed = new BlockList();
  private readonly any: boolean;

  constructor(allowNetworks: readonly string[] = []) {
    this.any = allowNetworks.length > 0;
    for (const cidr of allowNetworks) {
      const [net, bits] = cidr.split('/');
      const family = isIP(net ?? '');
      if (!family) throw new Error(`not a network: "${cidr}" (write a CIDR like 10.0.0.0/8 or fd00::/8)`);
      const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) throw new Error(`not a network: "${cidr}"`);
      this.allowed.addSubnet(net as string, prefix, family === 4 ? 'ipv4' : 'ipv6');
    }
  }

  /** Why `address` (an IP) may not be reached, or undefined when it may. */
  problemWith(address: string): string | undefined {
    const family = isIP(address);
    if (!family) return `${address} is not an IP address`;
    const v4 = family === 6 ? embeddedV4(address) : undefined;
    const [ip, type] = v4 ? [v4, 'ipv4' as const] : [address, family === 4 ? ('ipv4' as const) : ('ipv6' as const)];
    if (!notPublic.check(ip, type)) return undefined;
    if (this.any && this.allowed.check(ip, type)) return undefined;
    return `${address} is not a public address (loopback, private, link-local or reserved); allow its network with RAILYARD_WEBHOOKS_ALLOW_NETWORKS`;
  }
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Why `url` cannot be an endpoint by its form alone (scheme, credentials, a literal address), or undefined. */
export const urlProblem = (url: string, policy: AddressPolicy): string | undefined => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url is not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'url must be http or https';
  if (parsed.username || parsed.password) return 'url must not carry credentials';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return policy.problemWith(host);
  if (host === 'localhost' || host.endsWith('.localhost')) return policy.problemWith('127.0.0.1');
  return undefined;
};

/**
 * Resolves the URL's host and checks every address it resolves to: one bad address refuses all,
 * since which one a connection would use is not ours to pick. The caller connects to the address
 * returned, never resolving again, so a DNS answer that changes in between (rebinding) gains nothing.
 */
export const resolveChecked = async (
  url: string,
  policy: AddressPolicy,
  lookup: Lookup = systemLookup,
): Promise<{ address: string; family: number }> => {
  const problem = urlProblem(url, policy);
  if (problem) throw new AddressRefused(problem);
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  if (family) return { address: host, family };
  const addresses = await lookup(host);
  if (addresses.length === 0) throw new AddressRefused(`${host} resolves to no address`);
  for (const a of addresses) {
    const why = policy.problemWith(a.address);
    if (why) throw new AddressRefused(`${host} resolves to ${why}`);
  }
  return addresses[0] as { address: string; family: number };
};
