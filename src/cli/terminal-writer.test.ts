import { describe, expect, it } from 'vitest';
import { TerminalWriter } from './terminal-writer.js';

/** A terminal that records what reached it, and a loop whose turns the test runs one at a time. */
function rig(bytesPerTurn: number) {
  const reached: string[] = [];
  const callbacks: Array<(() => void) | undefined> = [];
  const turns: Array<() => void> = [];
  const out = { rows: 24, columns: 80, write: (text: string, written?: () => void) => void (reached.push(text), callbacks.push(written)) };
  const writer = new TerminalWriter(out, bytesPerTurn, (task) => void turns.push(task));
  const nextTurn = () => turns.shift()?.();
  return { reached, callbacks, turns, writer, nextTurn };
}

describe('TerminalWriter', () => {
  it('writes a bounded amount per turn of the loop, so keys typed during a flood are read between turns', () => {
    const { reached, turns, writer, nextTurn } = rig(10);
    for (const text of ['aaaa', 'bbbb', 'cccc', 'dddd', 'eeee']) writer.write(text);
    expect(reached).toEqual([]); // nothing inside the turn that received it
    nextTurn();
    expect(reached).toEqual(['aaaa', 'bbbb', 'cccc']); // the text that crosses the budget goes whole
    expect(turns).toHaveLength(1); // the rest waits for the next turn, after the loop has read what came meanwhile
    nextTurn();
    expect(reached).toEqual(['aaaa', 'bbbb', 'cccc', 'dddd', 'eeee']);
    expect(turns).toHaveLength(0);
  });

  it('writes a text longer than a turn whole, one per turn', () => {
    const { reached, writer, nextTurn } = rig(4);
    writer.write('x'.repeat(9));
    writer.write('y'.repeat(9));
    nextTurn();
    expect(reached).toEqual(['x'.repeat(9)]);
    nextTurn();
    expect(reached).toEqual(['x'.repeat(9), 'y'.repeat(9)]);
  });

  it("passes each text's written callback on, so the host's credit comes back only once the text left", () => {
    const { callbacks, writer, nextTurn } = rig(100);
    const written = () => {};
    writer.write('out', written);
    nextTurn();
    expect(callbacks).toEqual([written]);
  });

  it('on the way out writes everything queued, in order, then each text at once', () => {
    const { reached, turns, writer } = rig(4);
    writer.write('1234');
    writer.write('5678');
    writer.writeThrough();
    expect(reached).toEqual(['1234', '5678']);
    writer.write('restore');
    expect(reached).toEqual(['1234', '5678', 'restore']);
    for (const turn of turns) turn(); // the turn asked for before has nothing left to write
    expect(reached).toEqual(['1234', '5678', 'restore']);
  });

  it("gives the terminal's size", () => {
    const { writer } = rig(4);
    expect([writer.columns, writer.rows]).toEqual([80, 24]);
  });
});
