import { describe, expect, it } from 'vitest';
import { FlowWindow } from './flow-window.js';

const KiB = 1024;

/** A window on a clock the test moves; `fill` sends frames of 64 KiB until the window holds the sender back. */
function rig() {
  let now = 0;
  const window = new FlowWindow(512 * KiB, 2048 * KiB, 10, () => now);
  const fill = () => {
    let sent = 0;
    while (window.canSend(64 * KiB)) {
      window.sent(64 * KiB);
      sent += 64 * KiB;
    }
    window.markBlocked();
    return sent;
  };
  return { window, fill, wait: (ms: number) => void (now += ms) };
}

describe('FlowWindow', () => {
  it('doubles when an Ack frees a blocked sender as quickly as Acks come: the window held the output back', () => {
    const { window, fill, wait } = rig();
    expect(fill()).toBe(512 * KiB);
    wait(2);
    window.acked(512 * KiB);
    expect(window.window).toBe(1024 * KiB);
    fill();
    wait(14); // twice the quickest delay (2 ms) plus 10 ms: still quick
    window.acked(1024 * KiB);
    expect(window.window).toBe(2048 * KiB);
  });

  it('stays when the Acks of a blocked sender come late: the reader, not the window, holds the output back', () => {
    const { window, fill, wait } = rig();
    fill();
    wait(1);
    window.acked(64 * KiB); // the quickest Ack: 1 ms; the sender was blocked, and was freed quickly
    expect(window.window).toBe(1024 * KiB);
    for (let i = 0; i < 20; i++) {
      fill();
      wait(20); // output waits 20 ms at a slow reader
      window.acked(128 * KiB);
    }
    expect(window.window).toBe(1024 * KiB);
    expect(window.inFlight).toBeLessThanOrEqual(1024 * KiB);
  });

  it('grows on a long link whose reader keeps up: the quickest Ack sets what quick means', () => {
    const { window, fill, wait } = rig();
    for (let round = 0; round < 3; round++) {
      fill();
      wait(100); // every Ack takes a 100 ms round trip
      window.acked(window.inFlight);
    }
    expect(window.window).toBe(2048 * KiB); // 512 KiB doubled twice, then held at its maximum
  });

  it('does not grow for a sender that was never held back, and clamps an Ack to what is in flight', () => {
    const { window, wait } = rig();
    window.sent(64 * KiB);
    wait(1);
    expect(window.acked(100 * KiB)).toBe(64 * KiB);
    expect(window.window).toBe(512 * KiB);
    expect(window.inFlight).toBe(0);
  });

  it('forgets what a departed stream had in flight, so later Acks are matched to later frames', () => {
    const { window, fill, wait } = rig();
    fill();
    window.release(512 * KiB);
    expect(window.inFlight).toBe(0);
    wait(50);
    fill(); // sent at 50 ms
    wait(1);
    window.acked(512 * KiB); // 1 ms after these frames went, not 51 after the released ones
    expect(window.window).toBe(1024 * KiB);
  });
});
