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
const C1_OSC = 0x9d;

/** As xterm's parser: DCS parameters (dcsEntry) are not collected, only its passthrough data (dcs). */
type State = 'ground' | 'escape' | 'osc' | 'dcsEntry' | 'dcs';

/** Code units of one write, bytes or text, read and sliced alike. */
type Units = Uint8Array | string;

const unitAt = (data: Units, i: number) => (typeof data === 'string' ? data.charCodeAt(i) : data[i]!);

/**
 * Cuts every OSC and DCS string in a terminal's output to `limit` code
 * units, across writes, keeping what ends it. Strings begin and end exactly
 * where xterm's parser begins and ends them (ESC ] and ESC P, also after C0
 * controls that leave it in the escape state; C1 OSC and DCS; a DCS's data
 * after its parameters and final character; ended by ESC, CAN, SUB, any C1
 * control, and BEL for OSC): ending one early would let a program resume it
 * past the cut, ending one late would drop output. Checked against xterm
 * itself in escape-string-cap.test.ts.
 * Output without an overlong string passes through as the same object, uncopied.
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
    // Output with nothing that could begin or end a string, read outside one, leaves everything as it was: a flood of
    // plain text costs a few native searches instead of a look at each unit.
    if (this.state === 'ground' && !this.c1Lead && !mayChangeState(data)) return data;
    const bytes = typeof data !== 'string';
    const kept: Units[] = [];
    let keptFrom = 0;
    let dropping = this.inString() && this.length > this.limit;
    let changed = dropping;
    /** The string ended at unit i: keep from there on (with a C1 lead left out just before it put back). */
    const resume = (i: number, leadDropped: boolean) => {
      if (!dropping) return;
      dropping = false;
      keptFrom = i;
      if (!leadDropped) return;
      if (i === 0) kept.push(new Uint8Array([C1_LEAD]));
      else keptFrom = i - 1;
    };
    const next = new NextStateChanger(data);
    for (let i = 0; i < data.length; i++) {
      // In the ground state nothing but ESC, CAN, SUB and C1 controls matters: go to the next, with the engine's own search.
      if (this.state === 'ground' && !this.c1Lead) {
        i = next.from(i);
        if (i >= data.length) break;
      }
      const unit = unitAt(data, i);
      // A C1 control (U+0080..U+009F): the unit itself in text; in bytes the second of C2 xx.
      const c1 = (!bytes || this.c1Lead) && unit >= 0x80 && unit <= 0x9f;
      const leadDropped = this.leadDropped;
      this.c1Lead = bytes && unit === C1_LEAD && !c1;
      this.leadDropped = false;
      // As xterm's parser: a C1 control, ESC, CAN and SUB act in any state, and end any string.
      if (c1) {
        resume(i, bytes && leadDropped);
        this.state = unit === C1_OSC ? this.begin('osc') : unit === C1_DCS ? 'dcsEntry' : 'ground';
        continue;
      }
      if (unit === ESC || unit === CAN || unit === SUB) {
        resume(i, false);
        this.state = unit === ESC ? 'escape' : 'ground';
        continue;
      }
      switch (this.state) {
        case 'ground':
          continue;
        case 'escape':
          // Other C0 controls and DEL leave xterm in the escape state: ESC NUL ] still begins an OSC.
          if (unit < 0x20 || unit === 0x7f) continue;
          this.state = unit === 0x5d ? this.begin('osc') : unit === 0x50 ? 'dcsEntry' : 'ground';
          continue;
        case 'dcsEntry':
          // Parameters and intermediates (and C0, DEL) stay; a final character begins the data; anything else is an error xterm ends in ground.
          if (unit < 0x40 || unit === 0x7f) continue;
          this.state = unit <= 0x7e ? this.begin('dcs') : 'ground';
          continue;
        case 'osc':
          if (unit === BEL) {
            resume(i, false);
            this.state = 'ground';
            continue;
          }
      }
      // A unit of the string (BEL included, in a DCS).
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

  private inString(): boolean {
    return this.state === 'osc' || this.state === 'dcs';
  }

  private begin(state: 'osc' | 'dcs'): State {
    this.length = 0;
    return state;
  }
}

/**
 * Where the next unit that can move the parser out of its ground state is,
 * from any position on: each searched byte's next position is kept until
 * passed, so a write is searched about once in all, however many stops.
 */
class NextStateChanger {
  private readonly bytes: Uint8Array | undefined;
  private readonly at = [-1, -1, -1, -1];

  constructor(private readonly data: Units) {
    this.bytes = typeof data === 'string' ? undefined : searchable(data);
  }

  from(i: number): number {
    if (!this.bytes) {
      if (this.at[0]! < i && this.at[0] !== this.data.length) {
        STATE_CHANGERS_FROM.lastIndex = i;
        this.at[0] = STATE_CHANGERS_FROM.exec(this.data as string)?.index ?? this.data.length;
      }
      return this.at[0]!;
    }
    let nearest = this.bytes.length;
    for (let k = 0; k < STATE_CHANGER_BYTES.length; k++) {
      if (this.at[k]! < i && this.at[k] !== this.bytes.length) {
        const found = this.bytes.indexOf(STATE_CHANGER_BYTES[k]!, i);
        this.at[k] = found < 0 ? this.bytes.length : found;
      }
      if (this.at[k]! < nearest) nearest = this.at[k]!;
    }
    return nearest;
  }
}

const STATE_CHANGER_BYTES = [ESC, C1_LEAD, CAN, SUB];
const STATE_CHANGERS_FROM = /[\x18\x1a\x1b\x80-\x9f]/g;

/** ESC, CAN, SUB, or a C1 control (in bytes, its lead byte C2): what moves the parser out of its ground state, or a string's end. */
const STATE_CHANGERS = /[\x18\x1a\x1b\x80-\x9f]/;
function mayChangeState(data: Units): boolean {
  if (typeof data === 'string') return STATE_CHANGERS.test(data);
  const bytes = searchable(data);
  return bytes.includes(ESC) || bytes.includes(C1_LEAD) || bytes.includes(CAN) || bytes.includes(SUB);
}

/**
 * The same bytes as a Buffer, uncopied, where there is one: Buffer's search
 * is memchr, some 30 times faster than a Uint8Array's (output reaches a
 * screen worker as a Uint8Array, and a flood's every byte is searched).
 */
function searchable(data: Uint8Array): Uint8Array {
  if (typeof Buffer === 'undefined' || Buffer.isBuffer(data)) return data;
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
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
