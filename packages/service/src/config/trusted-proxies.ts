import net from 'node:net';
import { ConfigError } from './environment.js';

/** `10.0.0.5, 172.16.0.0/12, ::1`: addresses and CIDR ranges, nothing else (no names, no wildcards). */
export function parseTrustedProxies(raw: string | undefined): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = net.isIP(address ?? '');
    const validPrefix =
      prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
    if (!family || !validPrefix || extra !== undefined) {
      throw new ConfigError(
        `TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.5 or 172.16.0.0/12)`,
      );
    }
  }
  return entries;
}
