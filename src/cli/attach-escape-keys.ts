/**
 * Reads the keys typed into attach for its own commands, as ssh does, and
 * hands every other byte to the remote:
 * - the detach key (Ctrl-] by default, any control character, or none),
 *   anywhere in the input;
 * - ssh's escape, `~.` at the start of a line (at the start of the session,
 *   or after Enter); `~?` lists the escapes; `~~` sends one `~`, and `~`
 *   followed by anything else sends both (vim's `~` command at a line's
 *   start still works).
 * A bracketed paste (`ESC [ 200 ~` … `ESC [ 201 ~`) is text, never a
 * command: a paste containing the detach key arrives whole. The markers are
 * followed byte by byte, so a marker cut between two reads of the terminal
 * counts; nothing but a `~` at a line's start is ever held back (holding a
 * lone ESC would delay the Escape key in vim).
 */
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

export interface EscapeKeyOptions {
  /** The detach key, one control character; undefined for none. Default Ctrl-] (0x1d). */
  readonly detachKey?: string | undefined;
  /** Whether `~.` after a newline detaches. Default true. */
  readonly tildeEscape?: boolean;
}

export const DEFAULT_DETACH_KEY = '\x1d';

export interface ReadKeys {
  /** What goes to the remote, in order. */
  readonly toRemote: string;
  /** A detach command was typed; input after it is not for the remote. */
  readonly detach: boolean;
  /** `~?` was typed (once or more in this chunk): the escapes should be listed. */
  readonly help?: boolean;
}

export class EscapeKeyReader {
  private readonly detachKey: string | undefined;
  private readonly tildeEscape: boolean;
  private atLineStart = true;
  private tildeHeld = false;
  private inPaste = false;
  /** How much of the paste marker awaited next (start outside a paste, end inside) the last bytes matched. */
  private markerMatched = 0;

  constructor(options: EscapeKeyOptions = {}) {
    this.detachKey = 'detachKey' in options ? options.detachKey : DEFAULT_DETACH_KEY;
    this.tildeEscape = options.tildeEscape ?? true;
  }

  read(chunk: string): ReadKeys {
    let toRemote = '';
    let help = false;
    for (const c of chunk) {
      const wasInPaste = this.inPaste;
      this.followPasteMarkers(c);
      if (wasInPaste || this.inPaste) {
        // A paste, its markers included, goes through as it came (the `~` of its start marker too).
        toRemote += this.releaseTilde() + c;
        this.atLineStart = c === '\r' || c === '\n';
        continue;
      }
      if (this.tildeHeld) {
        this.tildeHeld = false;
        if (c === '.') return { toRemote, detach: true, ...(help ? { help } : {}) };
        if (c === '?') {
          help = true;
          continue; // still at the line's start: ~. may follow
        }
        toRemote += '~';
        if (c === '~') {
          this.atLineStart = false;
          continue;
        }
      }
      if (c === this.detachKey) return { toRemote, detach: true, ...(help ? { help } : {}) };
      if (this.tildeEscape && this.atLineStart && c === '~') {
        this.tildeHeld = true;
        continue;
      }
      toRemote += c;
      this.atLineStart = c === '\r' || c === '\n';
    }
    return { toRemote, detach: false, ...(help ? { help } : {}) };
  }

  /** The escapes this reader knows, for `~?`. */
  describe(): string {
    const key = this.detachKey === undefined ? [] : [`${describeKey(this.detachKey)} detach`];
    const tilde = this.tildeEscape ? ['~. detach', '~~ send ~', '~? this list (after Enter)'] : [];
    return [...key, ...tilde].join(', ') || 'none: every key goes to the remote';
  }

  private releaseTilde(): string {
    if (!this.tildeHeld) return '';
    this.tildeHeld = false;
    return '~';
  }

  private followPasteMarkers(c: string): void {
    const marker = this.inPaste ? PASTE_END : PASTE_START;
    if (c === marker[this.markerMatched]) this.markerMatched++;
    else this.markerMatched = c === marker[0] ? 1 : 0;
    if (this.markerMatched < marker.length) return;
    this.inPaste = !this.inPaste;
    this.markerMatched = 0;
  }
}

/**
 * The detach key from `--escape-key`: `none`, caret notation (`^]`, `^A`,
 * `^?`), or the control character itself. A printable key would detach in
 * the middle of typed text, and ESC would eat every escape sequence: refused.
 */
export function parseDetachKey(value: string): { key: string | undefined } | { error: string } {
  if (value === 'none') return { key: undefined };
  let key = value;
  if (/^\^.$/.test(value)) {
    const c = value[1]!.toUpperCase();
    key = c === '?' ? '\x7f' : String.fromCharCode(c.charCodeAt(0) ^ 0x40);
  }
  const code = key.length === 1 ? key.charCodeAt(0) : -1;
  if (!((code >= 0 && code < 0x20) || code === 0x7f)) return { error: `--escape-key takes a control key such as ^] or ^A, or none; got '${value}'` };
  if (key === '\x1b') return { error: "--escape-key cannot be ^[ (Escape): every arrow and function key starts with it" };
  if (key === '\r' || key === '\n') return { error: `--escape-key cannot be Enter ('${value}')` };
  return { key };
}

/** The key as a person reads it: ^]. */
export function describeKey(key: string): string {
  return key === '\x7f' ? '^?' : `^${String.fromCharCode(key.charCodeAt(0) ^ 0x40)}`;
}
