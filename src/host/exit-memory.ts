import type { TerminalExit } from './terminal.js';

/** How a terminal instance ended, and what its subscribed event then says. */
export interface RememberedExit {
  readonly name: string;
  readonly instanceId: string;
  readonly exit: TerminalExit;
  /** The terminal's output high-water mark when it exited. */
  readonly seq: number;
  readonly cols: number;
  readonly rows: number;
}

/**
 * The exits of the last `max` terminal instances (rememberedExits), oldest
 * forgotten first: a client whose link was down when its shell exited learns
 * the exit when it resubscribes to resume that instance (outputResume,
 * `subscribed.resume` 'exited'), instead of being given a new shell.
 */
export class ExitMemory {
  private readonly byInstance = new Map<string, RememberedExit>();

  constructor(private readonly max: number) {}

  remember(exit: RememberedExit): void {
    if (this.max <= 0) return;
    this.byInstance.set(exit.instanceId, exit);
    while (this.byInstance.size > this.max) this.byInstance.delete(this.byInstance.keys().next().value!);
  }

  /** The exit of `instanceId`, when it was a terminal of this name. */
  find(name: string, instanceId: string): RememberedExit | undefined {
    const found = this.byInstance.get(instanceId);
    return found?.name === name ? found : undefined;
  }
}
