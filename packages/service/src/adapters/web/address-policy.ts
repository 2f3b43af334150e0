import net from 'node:net';

/**
 * Addresses a fetch on a user's behalf must never reach: this host, private networks, link-local
 * (including every cloud's metadata service at 169.254.169.254 and fd00:ec2::254), carrier-grade NAT,
 * multicast and reserved space. IPv4 addresses embedded in IPv6 (mapped, compatible, translated, NAT64,
 * 6to4) are checked as the IPv4 address they reach.
 */
const FORBIDDEN = new net.BlockList();
const V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const V6: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];
for (const [a, p] of V4) FORBIDDEN.addSubnet(a, p, 'ipv4');
// No rule for ::ffff:0:0/96: BlockList checks IPv4 addresses against IPv6 rules in that mapped form,
// so such a rule would refuse every IPv4 address. Mapped addresses are checked via embeddedIpv4.
for (const [a, p] of V6) FORBIDDEN.addSubnet(a, p, 'ipv6');

/** The IPv4 address an IPv6 address leads to, for the mapped, NAT64 and 6to4 forms. */
function embeddedIpv4(ip: string): string | undefined {
  const lower = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return mapped[1];
  const groups = expandIpv6(lower);
  if (!groups) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  // ::ffff:a.b.c.d written in hex, IPv4-compatible ::/96 (::a.b.c.d, deprecated but still a way to
  // write an IPv4 address), IPv4-translated ::ffff:0:0/96, NAT64 64:ff9b::/96 and 6to4 2002::/16.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!);
  if (groups.slice(0, 6).every((g) => g === 0)) return v4(groups[6]!, groups[7]!);
  if (groups.slice(0, 4).every((g) => g === 0) && groups[4] === 0xffff && groups[5] === 0)
    return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0))
    return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return undefined;
}

function expandIpv6(ip: string): number[] | undefined {
  if (!net.isIPv6(ip)) return undefined;
  let text = ip;
  // The last group, when it is an IPv4 address (anchored at both ends: one pass).
  const dotted = /^(\d+\.\d+\.\d+\.\d+)$/.exec(text.slice(text.lastIndexOf(':') + 1));
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.replace(dotted[1]!, `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  const all = [...h, ...fill, ...t].map((g) => Number.parseInt(g, 16));
  return all.length === 8 && all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : undefined;
}

export function isForbiddenAddress(ip: string): boolean {
  const family = net.isIPv4(ip) ? 'ipv4' : net.isIPv6(ip) ? 'ipv6' : undefined;
  if (!family) return true;
  if (FORBIDDEN.check(ip, family)) return true;
  if (family === 'ipv6') {
    const v4 = embeddedIpv4(ip);
    if (v4 && FORBIDDEN.check(v4, 'ipv4')) return true;
  }
  return false;
}

/**
 * Hosts a self-hoster allows despite the rules above (URL_FETCH_ALLOW_HOSTS): exact names,
 * `*.suffix` wildcards, and CIDR ranges such as `10.20.0.0/16` or `127.0.0.1/32`.
 */
export class AllowList {
  private readonly names = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly ranges = new net.BlockList();
  private hasRanges = false;

  constructor(entries: string[]) {
    for (const raw of entries) {
      const e = raw.trim().toLowerCase();
      if (!e) continue;
      const cidr = /^([\da-f:.]+)\/(\d{1,3})$/.exec(e);
      if (cidr && net.isIP(cidr[1]!)) {
        this.ranges.addSubnet(cidr[1]!, Number(cidr[2]), net.isIPv4(cidr[1]!) ? 'ipv4' : 'ipv6');
        this.hasRanges = true;
      } else if (e.startsWith('*.')) this.suffixes.push(e.slice(1));
      else this.names.add(e);
    }
  }

  allowsHost(hostname: string): boolean {
    const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
    return this.names.has(h) || this.suffixes.some((s) => h.endsWith(s));
  }

  allowsAddress(ip: string): boolean {
    if (!this.hasRanges) return false;
    return this.ranges.check(ip, net.isIPv4(ip) ? 'ipv4' : 'ipv6');
  }
}
