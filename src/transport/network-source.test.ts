import { describe, expect, it } from 'vitest';
import { networkSource } from './network-source.js';

describe('networkSource: the network a limit counts an address in', () => {
  it('groups IPv4 by /24, IPv4-mapped IPv6 too', () => {
    expect(networkSource('10.1.2.3')).toBe('10.1.2.0/24');
    expect(networkSource('10.1.2.200')).toBe('10.1.2.0/24');
    expect(networkSource('::ffff:10.1.2.3')).toBe('10.1.2.0/24');
    expect(networkSource('10.1.3.3')).toBe('10.1.3.0/24');
  });

  it('counts each loopback address on its own (totals bound a process that spreads over many)', () => {
    expect(['127.0.0.1', '127.5.6.7', '::1', '::ffff:127.0.0.2'].map(networkSource)).toEqual(['127.0.0.1', '127.5.6.7', '::1', '127.0.0.2']);
  });

  it('groups IPv6 by /64, however the address is written', () => {
    expect(networkSource('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(networkSource('2001:0db8:0000:0001:ffff::9')).toBe('2001:db8:0:1::/64');
    expect(networkSource('2001:db8:0:2::5')).toBe('2001:db8:0:2::/64');
    expect(networkSource('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
