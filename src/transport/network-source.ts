import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a peer's address belongs to, as limits count it: an IPv4 /24,
 * an IPv6 /64, and all of loopback as one (every address of 127.0.0.0/8 is
 * usable from one machine, so counting them apart would count one attacker
 * 16 million times). Anything else is its own source.
 */
export function networkSource(address: string): string {
  const v4 = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
  if (isIPv4(v4)) return v4.startsWith('127.') ? 'loopback' : `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIPv6(address)) {
    if (address === '::1') return 'loopback';
    return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
  }
  return address || 'unknown';
}

/** The eight 16-bit groups of an IPv6 address, `::` expanded (any zone id dropped). */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}
