import headless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import unicode11Addon from '@xterm/addon-unicode11';

// The packages ship CommonJS; a default import is the portable way to reach them from ESM.
const { Terminal } = headless;
const { SerializeAddon } = serializeAddon;
const { Unicode11Addon } = unicode11Addon;

/**
 * The character widths every screen model uses, the host's and the client's:
 * Unicode 11's, as modern terminals (and tmux, and wcwidth in current libcs)
 * count them. xterm's default is Unicode 6, where an emoji is one column: a
 * repaint from such a model shifted emoji lines in the user's terminal.
 */
export const UNICODE_WIDTHS = '11';

export type HeadlessTerminal = InstanceType<typeof Terminal>;

/** A headless xterm terminal with its serializer, as the pool hands it out. */
export interface PooledTerminal {
  readonly term: HeadlessTerminal;
  readonly serializer: InstanceType<typeof SerializeAddon>;
  /** Its options as built: output can change some (LNM sets convertEol, DECSET 12 cursorBlink) that RIS leaves alone. */
  readonly builtOptions: Readonly<Record<string, unknown>>;
}

export interface TerminalPoolOptions {
  /** Terminals kept for reuse (idle, or resetting to become so); one given back past it is disposed. Default 8. */
  readonly maxIdle: number;
  /** Largest terminal kept, in cells (cols × rows); a larger one is disposed. Default 12000 (200 × 60). */
  readonly maxCells: number;
}

export const DEFAULT_TERMINAL_POOL_OPTIONS: TerminalPoolOptions = Object.freeze({ maxIdle: 8, maxCells: 12_000 });

/**
 * RIS (full reset), written through the parser like any output: it keeps its
 * place behind writes still queued in xterm's async write buffer, and it ends an
 * escape sequence, OSC or DCS left unfinished, which Terminal.reset() does neither.
 */
export const FULL_RESET = '\x1bc';

/**
 * Headless terminals, reused, each only at its own size and scrollback. Building an xterm
 * terminal costs about 0.3 ms and 200 KB of garbage (it registers hundreds of
 * parser handlers); a full reset costs a tenth of that. A terminal given back
 * is reset through its parser and handed out again only once that reset was
 * parsed, so what the next owner reads at once is a fresh screen. The pool
 * resets what RIS resets: buffers, scrollback, modes, charsets, cursor and
 * parser state; the window-title stack that RIS keeps stays empty because the
 * terminals never enable xterm's windowOptions.
 */
export class TerminalPool {
  private readonly options: TerminalPoolOptions;
  private readonly idle: PooledTerminal[] = [];
  private resetting = 0;
  private readonly waiters: Array<() => void> = [];
  /** Terminals built because none of the size was idle; tests read it. */
  built = 0;

  constructor(options: Readonly<Partial<TerminalPoolOptions>> = {}) {
    this.options = { ...DEFAULT_TERMINAL_POOL_OPTIONS, ...options };
  }

  /** Terminals ready to hand out. */
  get idleCount(): number {
    return this.idle.length;
  }

  /** The idle terminal of exactly this size and scrollback given back last, or a new one. */
  take(cols: number, rows: number, scrollback: number): PooledTerminal {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const { term } = this.idle[i]!;
      if (term.cols === cols && term.rows === rows && term.options.scrollback === scrollback) return this.idle.splice(i, 1)[0]!;
    }
    this.built++;
    // logLevel off: xterm would print every sequence it rejects to the console, a dump of kilobytes each, as often as a program prints junk.
    const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
    const serializer = new SerializeAddon();
    term.loadAddon(serializer);
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = UNICODE_WIDTHS;
    // The size is the pool's key, not an option to set back (xterm refuses to set it through options).
    const { cols: _cols, rows: _rows, ...builtOptions } = term.options as Record<string, unknown>;
    return { term, serializer, builtOptions };
  }

  /**
   * Takes a terminal back. The caller must hold no listener on it and have no
   * write of its own still queued (its callback would run for the next owner).
   */
  give(pooled: PooledTerminal): void {
    const { term } = pooled;
    if (this.idle.length + this.resetting >= this.options.maxIdle || term.cols * term.rows > this.options.maxCells) {
      term.dispose();
      return;
    }
    this.resetting++;
    term.write(FULL_RESET, () => {
      restoreOptions(pooled);
      this.resetting--;
      this.idle.push(pooled);
      if (this.resetting === 0) for (const resolve of this.waiters.splice(0)) resolve();
    });
  }

  /** Resolves once every terminal given back has finished its reset. */
  whenIdle(): Promise<void> {
    if (this.resetting === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** Sets back every option that output changed since the terminal was built. */
function restoreOptions({ term, builtOptions }: PooledTerminal): void {
  const options = term.options as Record<string, unknown>;
  for (const [name, value] of Object.entries(builtOptions)) if (options[name] !== value) options[name] = value;
}

/** This thread's pool: the screen worker's serves the host's screens; the main thread's the client's local screens and inline host screens. */
export const screenTerminals = new TerminalPool();
