import { describe, expect, it } from 'vitest';
import { SendGate, ungatedSends } from './send-gate.js';

describe('the send gate in drop mode', () => {
  it('remembers each dropped send with the code that tried it, for the compat gate to report', () => {
    const before = ungatedSends().count;
    const gate = new SendGate(7, {}, 'drop');
    const tryToSend = () => gate.allows(17); // WriteUnavailable, gated by writeUnavailable
    expect(tryToSend()).toBe(false);
    const { first, count } = ungatedSends();
    expect(count).toBe(before + 1);
    const logged = first.at(-1)!;
    expect(logged).toMatchObject({ opcode: 17, opcodeName: 'WriteUnavailable', capability: 'writeUnavailable', streamId: 7 });
    // The site is the caller's, not the gate's own frame.
    expect(logged.site).toMatch(/^tryToSend \(.*send-gate-log\.test\.ts:\d+:\d+\)/);
  });

  it("names the feature's method when the send goes through a queue's closure, each frame in balanced parentheses", () => {
    const gate = new SendGate(7, {}, 'drop');
    const send = () => gate.allows(17); // as HostStream.send asks the gate
    const relay = (queued: () => void) => queued(); // as HostStream.event calls the closure a feature method gives it
    class Feature {
      ring(): void {
        relay(() => void send());
      }
    }
    new Feature().ring();
    const { site } = ungatedSends().first.at(-1)!;
    expect(site).toMatch(/ < Feature\.ring \(/);
    for (const frame of site.split(' < ')) expect(frame, site).toMatch(/\([^()]*\)$/);
  });

  it('lets a negotiated or ungated opcode through without logging', () => {
    const before = ungatedSends().count;
    expect(new SendGate(1, { writeUnavailable: 1 }, 'drop').allows(17)).toBe(true);
    expect(new SendGate(1, {}, 'drop').allows(1)).toBe(true); // Output is not gated
    expect(ungatedSends().count).toBe(before);
  });
});
