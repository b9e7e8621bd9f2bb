/**
 * The longest OSC or DCS string a screen model is fed, in code units (bytes,
 * or UTF-16 units for text). xterm collects such a string one character at a
 * time into a string of its own, up to 10,000,000 characters, at about 32
 * bytes each: one OSC 0 title of 9 MB printed by any `cat` cost the host
 * 300 MB. Past this the rest of the string is left out of the screen (the
 * output forwarded to clients is not touched); titles are cut much shorter
 * anyway (maxTitleBytes), and no sequence a screen acts on is this long.
 */
export const MAX_SCREEN_ESCAPE_STRING = 64 * 1024;

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
/** Lead byte of the two-byte UTF-8 form of C1 controls (U+0080..U+009F). */
const C1_LEAD = 0xc2;
const C1_DCS = 0x90;
const C1_ST = 0x9c;
const C1_OSC = 0x9d;

type State = 'ground' | 'escape' | 'osc' | 'dcs';

/** Code units of one write, bytes or text, read and sliced alike. */
type Units = Uint8Array | string;

const unitAt = (data: Units, i: number) => (typeof data === 'string' ? data.charCodeAt(i) : data[i]!);

/**
 * Cuts every OSC and DCS string in a terminal's output to `limit` code
 * units, across writes, keeping what ends it. Only what xterm ends such a
 * string on ends one here (ESC, CAN, SUB, ST, and BEL for OSC): anything
 * else would let a program resume the string past the cut. Output without
 * an overlong string passes through as the same object, uncopied.
 */
export class EscapeStringCap {
  private state: State = 'ground';
  /** The last byte was 0xC2, which with the next one may form a C1 control. */
  private c1Lead = false;
  /** That 0xC2 was left out, past the limit: if it begins ST after all, it is put back. */
  private leadDropped = false;
  /** Units of the current string so far. */
  private length = 0;

  constructor(private readonly limit = MAX_SCREEN_ESCAPE_STRING) {}

  filter<T extends Units>(data: T): T {
    const bytes = typeof data !== 'string';
    const kept: Units[] = [];
    let keptFrom = 0;
    let dropping = (this.state === 'osc' || this.state === 'dcs') && this.length > this.limit;
    let changed = dropping;
    for (let i = 0; i < data.length; i++) {
      const unit = unitAt(data, i);
      // A C1 control: the unit itself in text; in bytes the second of C2 xx.
      const c1 = bytes ? this.c1Lead : unit >= 0x80 && unit <= 0x9f;
      const leadDropped = this.leadDropped;
      this.c1Lead = bytes && unit === C1_LEAD;
      this.leadDropped = false;
      if (this.state === 'ground' || this.state === 'escape') {
        if (unit === ESC) this.state = 'escape';
        else if (this.state === 'escape') this.state = unit === 0x5d ? this.begin('osc') : unit === 0x50 ? this.begin('dcs') : 'ground';
        else if (c1 && (unit === C1_OSC || unit === C1_DCS)) this.state = this.begin(unit === C1_OSC ? 'osc' : 'dcs');
        continue;
      }
      const ends = unit === ESC || unit === CAN || unit === SUB || (c1 && unit === C1_ST) || (this.state === 'osc' && unit === BEL);
      if (ends) {
        this.state = unit === ESC ? 'escape' : 'ground';
        if (!dropping) continue;
        dropping = false;
        keptFrom = i;
        if (c1 && bytes && leadDropped) {
          // ST is C2 9C and its C2 was left out: put it back, before this byte.
          if (i === 0) kept.push(new Uint8Array([C1_LEAD]));
          else keptFrom = i - 1;
        }
        continue;
      }
      if (++this.length <= this.limit) continue;
      if (!dropping) kept.push(slice(data, keptFrom, i));
      dropping = true;
      changed = true;
      this.leadDropped = this.c1Lead;
    }
    if (!changed) return data;
    if (!dropping) kept.push(slice(data, keptFrom, data.length));
    return join(kept, bytes) as T;
  }

  private begin(state: 'osc' | 'dcs'): State {
    this.length = 0;
    return state;
  }
}

function slice<T extends Units>(data: T, from: number, to: number): T {
  return (typeof data === 'string' ? data.slice(from, to) : (data as Uint8Array).subarray(from, to)) as T;
}

function join(parts: readonly Units[], bytes: boolean): Units {
  if (!bytes) return (parts as string[]).join('');
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts as Uint8Array[]) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
