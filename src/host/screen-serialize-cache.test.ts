import headless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { ScreenModel } from './screen.js';

type Op = (screen: ScreenModel) => void | Promise<void>;

/**
 * The screen model keeps its last serialisation until the screen changes.
 * Each case serialises a screen before and after a change and compares it with
 * a twin that went through the same changes but never serialised before: a
 * stale cache shows up as a difference.
 */
async function afterChange(setup: Op, change: Op): Promise<{ before: string; after: string; twin: string }> {
  const screen = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 });
  const twin = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 });
  await setup(screen);
  await setup(twin);
  const before = screen.serialize();
  expect(screen.serialize()).toBe(before); // served again unchanged
  await change(screen);
  await change(twin);
  const result = { before, after: screen.serialize(), twin: twin.serialize() };
  screen.dispose();
  twin.dispose();
  return result;
}

const writeAndSettle = (data: string, seq: number): Op => async (screen) => {
  screen.write(data, seq);
  await screen.settled();
};

describe('the snapshot text of a screen model, kept until the screen changes', () => {
  it('is taken again after a parsed write', async () => {
    const r = await afterChange(writeAndSettle('one\r\n', 5), writeAndSettle('two\r\n', 10));
    expect(r.after).not.toBe(r.before);
    expect(r.after).toBe(r.twin);
  });

  it('is taken again after a resize', async () => {
    // A line wider than the new width reflows, so the serialised text changes.
    const r = await afterChange(writeAndSettle('0123456789abcdef\r\n', 18), (s) => s.resize(10, 4));
    expect(r.after).not.toBe(r.before);
    expect(r.after).toBe(r.twin);
  });

  it('is taken again after the scrollback option changes', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i}\r\n`).join('');
    const setScrollback: Op = (s) => {
      (s as unknown as { term: InstanceType<typeof headless.Terminal> }).term.options.scrollback = 2;
    };
    const r = await afterChange(writeAndSettle(lines, lines.length), setScrollback);
    expect(r.after).not.toBe(r.before);
    expect(r.after).toBe(r.twin);
  });

  it('does not change on a write that is still being parsed', async () => {
    const screen = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 });
    screen.write('one\r\n', 5);
    await screen.settled();
    const before = screen.serialize();
    screen.write('two\r\n', 10);
    expect(screen.serialize()).toBe(before); // the snapshot at seq 5, which is what the screen shows
    await screen.settled();
    expect(screen.serialize()).not.toBe(before);
    screen.dispose();
  });
});
