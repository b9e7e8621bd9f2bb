import { describe, expect, it } from 'vitest';
import { ScreenModel } from './screen.js';
import { ScreenThread, type ScreenThreadKind } from './screen-thread.js';

type Op = (screen: ScreenModel) => void | Promise<void>;

const snapshotText = (screen: ScreenModel) => new Promise<string>((resolve) => screen.snapshot((_seq, text) => resolve(text)));

describe.each<ScreenThreadKind>(['inline', 'worker'])('the snapshot text of a screen model (%s), kept until the screen changes', (kind) => {
  /**
   * Each case takes a screen's snapshot before and after a change and compares
   * it with a twin that went through the same changes but never took one
   * before: a stale kept text shows up as a difference.
   */
  async function afterChange(setup: Op, change: Op): Promise<{ before: string; again: string; after: string; twin: string }> {
    const screen = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 }, ScreenThread.of(kind));
    const twin = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 }, ScreenThread.of(kind));
    await setup(screen);
    await setup(twin);
    const before = await snapshotText(screen);
    const again = await snapshotText(screen);
    await change(screen);
    await change(twin);
    const result = { before, again, after: await snapshotText(screen), twin: await snapshotText(twin) };
    screen.dispose();
    twin.dispose();
    return result;
  }

  const write = (data: string, seq: number): Op => (screen) => screen.write(data, seq);

  it('is taken again after a write', async () => {
    const r = await afterChange(write('one\r\n', 5), write('two\r\n', 10));
    expect(r.again).toBe(r.before);
    expect(r.after).not.toBe(r.before);
    expect(r.after).toBe(r.twin);
  });

  it('is taken again after a resize', async () => {
    // A line wider than the new width reflows, so the serialised text changes.
    const r = await afterChange(write('0123456789abcdef\r\n', 18), (s) => s.resize(10, 4));
    expect(r.after).not.toBe(r.before);
    expect(r.after).toBe(r.twin);
  });

  it('carries the size its text was serialised at, not the size when the answer comes', async () => {
    const screen = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 }, ScreenThread.of(kind));
    const twin = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 }, ScreenThread.of(kind));
    for (const s of [screen, twin]) s.write('0123456789abcdef\r\n', 18);
    await screen.settled(); // nothing left to parse: the request is answered before the resize reaches the screen thread
    const answer = new Promise<{ text: string; size: { cols: number; rows: number } }>((resolve) => screen.snapshot((_seq, text, size) => resolve({ text, size })));
    screen.resize(10, 4); // this handle's size changes at once, before the answer comes
    expect(await answer).toEqual({ text: await snapshotText(twin), size: { cols: 20, rows: 4 } });
    screen.dispose();
    twin.dispose();
  });

  it('answers with the seq of everything written before the request', async () => {
    const screen = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 }, ScreenThread.of(kind));
    screen.write('one\r\n', 5);
    screen.write('x'.repeat(30_000), 30_005); // still being parsed when the snapshot is asked for
    const answer = await new Promise<{ seq: number; text: string }>((resolve) => screen.snapshot((seq, text) => resolve({ seq, text })));
    expect(answer.seq).toBe(30_005);
    expect(answer.text).toContain('xxxx');
    screen.dispose();
  });
});
