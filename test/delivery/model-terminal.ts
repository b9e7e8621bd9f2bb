import { Listeners, type TerminalBackend, type TerminalExit, type Unsubscribe, type WriteOutcome } from '../../src/host/terminal.js';

export type WriteFault = 'refuse' | 'unknownLanded' | 'unknownLost';

/**
 * A SIMULATED terminal for the model test: it records every write as one
 * string and produces no output (the screen model is not under test). Faults
 * queued by the schedule decide what the next writes come to. kill() ends it
 * with an exit, as the backend contract says, so a closed runtime frees it at once.
 */
export class ModelTerminal implements TerminalBackend {
  readonly writes: string[] = [];
  /** Writes that returned 'unknown' and did not land: the model allows their absence. */
  readonly lostUnknown = new Set<string>();
  readonly faults: WriteFault[] = [];
  private readonly data = new Listeners<string>();
  private readonly exits = new Listeners<TerminalExit>();
  readonly cols = 80;
  readonly rows = 24;
  private ended = false;

  get exited(): boolean {
    return this.ended;
  }

  write(data: string): WriteOutcome {
    if (this.ended) return 'refused';
    const fault = this.faults.shift();
    if (fault === 'refuse') return 'refused';
    if (fault === 'unknownLost') {
      this.lostUnknown.add(data);
      return 'unknown';
    }
    this.writes.push(data);
    return fault === 'unknownLanded' ? 'unknown' : 'written';
  }

  resize(): void {}

  onData(cb: (data: string) => void): Unsubscribe {
    return this.data.add(cb);
  }

  onExit(cb: (exit: TerminalExit) => void): Unsubscribe {
    return this.exits.add(cb);
  }

  kill(): void {
    if (this.ended) return;
    this.ended = true;
    this.exits.emit({ exitCode: null, signal: 1 });
  }
}
