import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputJournal } from '../../src/delivery/journal.js';
import { InputLedger } from '../../src/delivery/ledger.js';
import type { DeliveryNotice } from '../../src/delivery/notices.js';
import { DEFAULT_DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/delivery/options.js';
import { pastePieces, splitPaste, utf8Length } from '../../src/delivery/paste.js';
import { ManualScheduler } from '../client/manual-scheduler.js';
import { assertSeeded } from '../helpers/seeded-property.js';

function journal(options: Partial<DeliveryOptions> = {}) {
  const clock = new ManualScheduler();
  const sent: Array<[number, string]> = [];
  const notices: DeliveryNotice[] = [];
  const j = new InputJournal(clock, { notice: (n) => notices.push(n) }, { ...DEFAULT_DELIVERY_OPTIONS, ...options });
  j.attach((seq, data) => sent.push([seq, data]), 'L1');
  return { j, clock, sent, notices };
}

describe('InputJournal', () => {
  it('answers resend requests with a backoff from 100 ms doubling to 8 s, reset by progress', () => {
    const { j, clock, sent } = journal({ stallResendMs: 1e9 });
    j.append('a');
    const delays: number[] = [];
    for (let i = 0; i < 9; i++) {
      const before = sent.length;
      j.onAck(0, 'resend');
      let waited = 0;
      while (sent.length === before) {
        clock.advance(50);
        waited += 50;
      }
      delays.push(waited);
    }
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 8000, 8000]);
    j.onAck(1, 'applied');
    j.append('b');
    const before = sent.length;
    j.onAck(1, 'resend');
    clock.advance(100);
    expect(sent.length).toBe(before + 1);
  });

  it('budgets a paste by its UTF-8 bytes, not its characters', () => {
    // 'é' is 2 bytes: 5 of them fill a 10-byte budget exactly, 6 go past it.
    const within = journal({ journalBudgetBytes: 10, pasteChunkBytes: 4 });
    within.j.paste('é'.repeat(5));
    expect(within.notices).toEqual([]);
    const past = journal({ journalBudgetBytes: 10, pasteChunkBytes: 4 });
    past.j.paste('é'.repeat(6));
    expect(past.notices.map((n) => n.code)).toEqual(['BUDGET_EXCEEDED']);
  });

  it('reports a persistent refusal once per episode', () => {
    const { j, notices } = journal({ escalateAfterResendRequests: 3 });
    j.append('a');
    for (let i = 0; i < 10; i++) j.onAck(0, 'resend');
    expect(notices.map((n) => n.code)).toEqual(['PERSISTENT_REFUSAL']);
  });

  it('past the retention budget input goes out once, then only as empty slots, and the gap closes once acked', () => {
    const { j, clock, sent, notices } = journal({ journalBudgetBytes: 4, stallResendMs: 1e9 });
    j.append('abc');
    j.append('defg'); // 7 bytes > 4: the gap starts here
    j.append('h');
    expect(notices.map((n) => n.code)).toEqual(['BUDGET_EXCEEDED']);
    expect(sent).toEqual([[1, 'abc'], [2, 'defg'], [3, 'h']]);
    sent.length = 0;
    j.onAck(0, 'resend');
    clock.advance(100);
    expect(sent).toEqual([[1, 'abc'], [2, ''], [3, '']]);
    j.onAck(3, 'applied');
    j.append('i');
    sent.length = 0;
    j.detach();
    j.attach((seq, data) => sent.push([seq, data]), 'L1');
    expect(sent).toEqual([[4, 'i']]);
  });

  it('a new ledger id drops sent input (never replayed) and renumbers the never-sent rest from 1', () => {
    const { j, sent, notices } = journal();
    j.append('sent');
    j.detach();
    j.append('held');
    sent.length = 0;
    j.attach((seq, data) => sent.push([seq, data]), 'L2');
    expect(notices.map((n) => [n.code, n.entries.map((e) => e.data)])).toEqual([['LEDGER_CHANGED', ['sent']]]);
    expect(sent).toEqual([[1, 'held']]);
  });

  it('cancelling a paste withdraws only its own chunks: typing before it is kept, chunks become empty slots', () => {
    const { j, sent } = journal();
    j.append('typed');
    const paste = j.paste('x'.repeat(40 * 1024));
    expect(paste.seqs).toEqual([2, 3, 4]);
    expect(j.withdraw(paste.op)).toBe(3);
    sent.length = 0;
    j.detach();
    j.attach((seq, data) => sent.push([seq, data]), 'L1');
    expect(sent).toEqual([[1, 'typed'], [2, ''], [3, ''], [4, '']]);
  });
});

describe('splitPaste', () => {
  it('never exceeds the chunk size nor splits a code point', () => {
    const text = 'é€😀a'.repeat(5000);
    const chunks = splitPaste(text, 16 * 1024);
    expect(chunks.join('')).toBe(text);
    for (const c of chunks) expect(new TextEncoder().encode(c).length).toBeLessThanOrEqual(16 * 1024);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('fills each piece but the last as far as a whole code point allows, in ASCII and beyond', () => {
    const utf8 = new TextEncoder();
    assertSeeded(
      fc.property(fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 })), fc.integer({ min: 4, max: 40 }), (text, max) => {
        const pieces = pastePieces(text, max);
        expect(pieces.map((p) => p.text).join('')).toBe(text);
        pieces.forEach((p, i) => {
          const bytes = utf8.encode(p.text).length;
          expect(p.bytes).toBe(bytes);
          expect(bytes).toBeLessThanOrEqual(max);
          if (i < pieces.length - 1) expect(bytes + utf8.encode(String.fromCodePoint(pieces[i + 1]!.text.codePointAt(0)!)).length).toBeGreaterThan(max); // the next code point did not fit
        });
      }),
      703,
      500,
    );
  });

  it('knows the UTF-8 length of each piece, as utf8Length counts it', () => {
    for (const text of ['é€😀a'.repeat(5000), 'ascii only '.repeat(3000), 'x']) {
      const pieces = pastePieces(text, 16 * 1024);
      expect(pieces.map((p) => p.text)).toEqual(splitPaste(text, 16 * 1024));
      for (const p of pieces) expect(p.bytes).toBe(new TextEncoder().encode(p.text).length);
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    }
  });
});

describe('InputLedger', () => {
  const write = (log: string[]) => (d: string) => (log.push(d), 'written' as const);

  it('judges the decision table: duplicate, next, gap, refused, unknown, empty slot', () => {
    const ledger = new InputLedger('L');
    const s = ledger.open('t', 'in-1');
    const log: string[] = [];
    expect(ledger.judge(s, 1, 'a', write(log))).toEqual({ seq: 1, status: 'applied', wrote: true });
    expect(ledger.judge(s, 1, 'a', write(log))).toEqual({ seq: 1, status: 'applied', wrote: false });
    expect(ledger.judge(s, 3, 'c', write(log))).toEqual({ seq: 1, status: 'resend', wrote: false });
    expect(ledger.judge(s, 2, 'b', () => 'refused')).toEqual({ seq: 1, status: 'resend', wrote: false });
    expect(ledger.judge(s, 2, 'b', () => 'unknown')).toEqual({ seq: 2, status: 'deliveryUnknown', wrote: true });
    expect(ledger.judge(s, 3, '', write(log))).toEqual({ seq: 3, status: 'applied', wrote: false });
    expect(log).toEqual(['a']);
  });

  it('evicts the least recently used session past its bound; a returning session is a new incarnation', () => {
    const ledger = new InputLedger('L', { ledgerMaxSessions: 2 });
    const a = ledger.open('t', 'a');
    ledger.open('t', 'b');
    ledger.open('t', 'a'); // a is now the most recent
    ledger.open('t', 'c'); // evicts b
    expect(ledger.sessionCount).toBe(2);
    expect(ledger.open('t', 'a')).toBe(a);
    expect(ledger.open('t', 'b').ledgerId).not.toBe('L.2');
  });
});

describe('after an old host in between', () => {
  it('numbers from 1 again, so a fresh ledger applies the next key instead of asking for a resend forever', () => {
    const { j, sent } = journal({ stallResendMs: 1e9 });
    j.append('a');
    j.append('b');
    j.onAck(2, 'applied');
    j.detach();
    expect(j.attachUnsequenced()).toEqual([]);
    j.detach();
    const ledger = new InputLedger('L2');
    const session = ledger.open('main', 'session-2');
    const written: string[] = [];
    j.attach((seq, data) => {
      sent.push([seq, data]);
      const verdict = ledger.judge(session, seq, data, (d) => (written.push(d), 'written'));
      j.onAck(verdict.seq, verdict.status);
    }, session.ledgerId);
    j.append('c');
    expect(written).toEqual(['c']);
    expect(j.unackedCount).toBe(0);
  });
});

describe('StreamInput across an old host', () => {
  it('starts a new input session after an unsequenced episode, so the same ledger later sees fresh numbering', async () => {
    const { StreamInput } = await import('../../src/client/stream-input.js');
    const { DEFAULT_CLIENT_OPTIONS } = await import('../../src/client/options.js');
    let n = 0;
    const options = { ...DEFAULT_CLIENT_OPTIONS, connect: async () => undefined as never, newInputSessionId: () => `session-${++n}` };
    const sent: Array<[number, string]> = [];
    const input = new StreamInput({ id: 1, sendInput: (seq, data) => sent.push([seq, data]), refused: () => undefined, notice: () => undefined }, options);
    const first = input.sessionId;
    input.subscribed({ inputAck: 1 }, 'L1');
    input.down();
    input.subscribed({}, undefined); // an old host: unsequenced
    expect(input.sessionId).not.toBe(first);
  });
});
