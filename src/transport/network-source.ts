import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a peer's address belongs to, as limits count it: an IPv4 /24,
 * an IPv6 /64. A loopback address counts on its own: everyone who connects
 * over loopback is on this machine, and lumping them together would let one
 * local process lock every other one out; a local process that spreads over
 * many loopback addresses is bounded by the limits' totals instead.
 */
export function networkSource(address: string): string {
  const v4 = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
  if (isIPv4(v4)) return v4.startsWith('127.') ? v4 : `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIPv6(address)) {
    if (address === '::1') return '::1';
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
