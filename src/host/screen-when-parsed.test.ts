import { describe, expect, it } from 'vitest';
import { ScreenModel } from './screen.js';
import { ScreenThread, type ScreenThreadKind } from './screen-thread.js';

/** One microtask turn: a callback queued before this call has run by its end; a timer has not. */
const microtaskTurn = (): Promise<void> => new Promise((resolve) => queueMicrotask(resolve));

describe('whenParsed on a screen model parsed inline', () => {
  it('answers an idle screen within a microtask, without waiting for a parse timer', async () => {
    const screen = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 }, ScreenThread.inline());
    screen.write('hello\r\n', 7);
    await screen.settled();
    const answers: number[] = [];
    screen.whenParsed((seq) => answers.push(seq));
    expect(answers).toEqual([]); // never synchronously: callers count the snapshot as pending first
    await microtaskTurn();
    expect(answers).toEqual([7]);
    screen.dispose();
  });
});

describe.each<ScreenThreadKind>(['inline', 'worker'])('whenParsed on a screen model (%s)', (kind) => {
  const newScreen = () => new ScreenModel({ cols: 20, rows: 4, scrollback: 10 }, ScreenThread.of(kind));

  it('never answers synchronously', async () => {
    const screen = newScreen();
    const answers: number[] = [];
    screen.whenParsed((seq) => answers.push(seq));
    expect(answers).toEqual([]); // callers count the snapshot as pending first
    await screen.settled();
    expect(answers).toEqual([0]);
    screen.dispose();
  });

  it('waits for a write still being parsed, and answers with its seq', async () => {
    const screen = newScreen();
    screen.write('one\r\n', 5);
    const answers: number[] = [];
    screen.whenParsed((seq) => answers.push(seq));
    await screen.settled();
    expect(answers).toEqual([5]);
    screen.dispose();
  });

  it('answers in the order asked when an idle answer and a waiting one are both pending', async () => {
    const screen = newScreen();
    const answers: string[] = [];
    screen.whenParsed((seq) => answers.push(`idle@${seq}`));
    screen.write('x', 1);
    screen.whenParsed((seq) => answers.push(`after write@${seq}`));
    await screen.settled();
    expect(answers).toEqual(['idle@0', 'after write@1']);
    screen.dispose();
  });

  it('does not answer once the screen is disposed', async () => {
    const screen = newScreen();
    const answers: number[] = [];
    screen.whenParsed((seq) => answers.push(seq));
    screen.dispose();
    await screen.text(); // the thread has handled the dispose, and answered what waited before it
    expect(answers).toEqual([]);
  });
});
