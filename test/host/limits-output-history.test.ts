import { afterEach, describe, expect, it } from 'vitest';
import { HostRuntime } from '../../src/host/runtime.js';
import { ScriptBackend } from '../../src/host/script-backend.js';

let runtime: HostRuntime | undefined;
afterEach(() => runtime?.close());

/** A runtime of script terminals; `emit(name, text)` makes one print. */
function host(limits: { outputHistoryBytes: number; maxTotalOutputHistoryBytes: number }) {
  const backends = new Map<string, ScriptBackend>();
  runtime = new HostRuntime({
    limits,
    terminals: (name) => {
      const b = new ScriptBackend({ banner: '' });
      backends.set(name, b);
      return b;
    },
  });
  const rt = runtime;
  return {
    open: (name: string) => rt.openTerminal(name)!,
    emit: (name: string, text: string) => backends.get(name)!.emit(text),
  };
}

const KB = 'x'.repeat(1000);

describe('outputHistoryBytes and maxTotalOutputHistoryBytes', () => {
  it('keep each terminal at its own limit', () => {
    const h = host({ outputHistoryBytes: 2500, maxTotalOutputHistoryBytes: 1_000_000 });
    const a = h.open('a');
    for (let i = 0; i < 10; i++) h.emit('a', KB);
    expect(a.seq).toBe(10_000);
    expect(a.history.heldBytes).toBe(2500);
  });

  it('share the host-wide budget evenly, and shrink the others when a terminal starts', () => {
    const h = host({ outputHistoryBytes: 8000, maxTotalOutputHistoryBytes: 9000 });
    const a = h.open('a');
    for (let i = 0; i < 10; i++) h.emit('a', KB);
    expect(a.history.heldBytes).toBe(8000);
    const b = h.open('b');
    const c = h.open('c');
    expect(a.history.heldBytes).toBe(3000); // trimmed when b, then c, started, before either printed
    for (let i = 0; i < 10; i++) h.emit('b', KB);
    expect(b.history.heldBytes).toBe(3000);
    expect(a.history.heldBytes + b.history.heldBytes + c.history.heldBytes).toBeLessThanOrEqual(9000);
  });

  it('are freed with the terminal', () => {
    const h = host({ outputHistoryBytes: 8000, maxTotalOutputHistoryBytes: 9000 });
    const a = h.open('a');
    h.emit('a', KB);
    expect(a.history.allocatedBytes).toBeGreaterThan(0);
    a.dispose();
    expect(a.history.allocatedBytes).toBe(0);
  });
});
