import { describe, expect, it } from 'vitest';
import { type InputOutcome, InputJournal } from '../../src/delivery/journal.js';
import { DEFAULT_DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/delivery/options.js';
import { ManualScheduler } from '../client/manual-scheduler.js';

/** A journal attached to ledger L1, and the outcome each input got (in the order they came), by its text. */
function journal(options: Partial<DeliveryOptions> = {}) {
  const j = new InputJournal(new ManualScheduler(), { notice: () => undefined }, { ...DEFAULT_DELIVERY_OPTIONS, ...options });
  const outcomes = new Map<string, InputOutcome[]>();
  const append = (data: string) => j.append(data, (outcome) => outcomes.set(data, [...(outcomes.get(data) ?? []), outcome]));
  const code = (data: string) => outcomes.get(data)?.map((o) => (o.applied ? 'applied' : o.code)).join(',');
  return { j, append, code };
}

describe('InputJournal: every input hears its outcome, once', () => {
  it('applied when a cumulative InputAck covers it; only when it does', () => {
    const { j, append, code } = journal();
    j.attach(() => undefined, 'L1');
    append('a');
    append('b');
    append('c');
    j.onAck(2, 'applied');
    expect([code('a'), code('b'), code('c')]).toEqual(['applied', 'applied', undefined]);
    j.onAck(3, 'applied');
    j.onAck(3, 'applied'); // a duplicate ack settles nothing twice
    expect(code('c')).toBe('applied');
  });

  it('DELIVERY_UNKNOWN for the input the ack says may have run, applied for those before it', () => {
    const { j, append, code } = journal();
    j.attach(() => undefined, 'L1');
    append('a');
    append('b');
    j.onAck(2, 'deliveryUnknown');
    expect([code('a'), code('b')]).toEqual(['applied', 'DELIVERY_UNKNOWN']);
  });

  it('a resend request settles nothing: the input is still on its way', () => {
    const { j, append, code } = journal();
    j.attach(() => undefined, 'L1');
    append('a');
    j.onAck(0, 'resend');
    expect(code('a')).toBeUndefined();
  });

  it('TERMINAL_REPLACED, LEDGER_CHANGED, OLD_HOST or UNCONFIRMABLE, CLOSED: each way input is dropped says so', () => {
    const replaced = journal();
    replaced.j.attach(() => undefined, 'L1');
    replaced.append('a');
    replaced.j.abandon('instance changed');
    replaced.j.onAck(1, 'applied'); // the empty slot's ack
    expect(replaced.code('a')).toBe('TERMINAL_REPLACED');

    const restarted = journal();
    restarted.j.attach(() => undefined, 'L1');
    restarted.append('sent');
    restarted.j.detach();
    restarted.append('held');
    restarted.j.attach(() => undefined, 'L2');
    restarted.j.onAck(1, 'applied'); // the new ledger applied the held input, renumbered 1
    expect([restarted.code('sent'), restarted.code('held')]).toEqual(['LEDGER_CHANGED', 'applied']);

    const old = journal();
    old.j.attach(() => undefined, 'L1');
    old.append('sent');
    old.j.detach();
    old.append('held');
    old.j.attachUnsequenced();
    expect([old.code('sent'), old.code('held')]).toEqual(['OLD_HOST', 'UNCONFIRMABLE']);

    const closed = journal();
    closed.append('never sent');
    closed.j.clear();
    expect(closed.code('never sent')).toBe('CLOSED');
  });

  it('BUDGET_EXCEEDED for input past the retention budget, whose ack may be for its empty slot', () => {
    const { j, append, code } = journal({ journalBudgetBytes: 4 });
    j.attach(() => undefined, 'L1');
    append('ab');
    append('cdefg');
    j.onAck(2, 'applied');
    expect([code('ab'), code('cdefg')]).toEqual(['applied', 'BUDGET_EXCEEDED']);
  });
});

describe('InputJournal: a paste hears one outcome, and is withdrawn past its timeout', () => {
  /** A journal attached to ledger L1 whose pastes split into 4-byte chunks, each with 1000 ms to be applied. */
  function pasting() {
    const clock = new ManualScheduler();
    const sent: Array<[number, string]> = [];
    const j = new InputJournal(clock, { notice: () => undefined }, { ...DEFAULT_DELIVERY_OPTIONS, pasteChunkBytes: 4, pasteTimeoutMsPerChunk: 1000 });
    j.attach((seq, data) => sent.push([seq, data]), 'L1');
    const outcomes: string[] = [];
    const paste = (text: string) => j.paste(text, (o) => outcomes.push(o.applied ? 'applied' : o.code));
    return { j, clock, sent, outcomes, paste };
  }

  it('applied once every chunk is, and its timer gone', () => {
    const { j, clock, outcomes, paste } = pasting();
    paste('abcdefghijkl'); // 3 chunks
    j.onAck(2, 'applied');
    expect(outcomes, 'one chunk still unconfirmed').toEqual([]);
    j.onAck(3, 'applied');
    expect(outcomes).toEqual(['applied']);
    clock.advance(10_000);
    expect(outcomes, 'the timeout of a paste applied says nothing more').toEqual(['applied']);
  });

  it('TIMED_OUT at pasteTimeoutMsPerChunk per chunk: the chunks not applied become empty slots, never written', () => {
    const { j, clock, sent, outcomes, paste } = pasting();
    paste('abcdefghijkl');
    j.onAck(1, 'applied');
    clock.advance(2999);
    expect(outcomes, '3 chunks have 3000 ms').toEqual([]);
    clock.advance(1);
    expect(outcomes).toEqual(['TIMED_OUT']);
    sent.length = 0;
    j.detach();
    j.attach((seq, data) => sent.push([seq, data]), 'L1');
    expect(sent, 'resent on the next link as empty slots').toEqual([[2, ''], [3, '']]);
    j.onAck(3, 'applied');
    expect(outcomes, 'one outcome, once').toEqual(['TIMED_OUT']);
  });

  it('the first chunk not applied decides: a cancelled paste is WITHDRAWN when its slots are confirmed', () => {
    const { j, outcomes, paste } = pasting();
    const { op } = paste('abcdefgh');
    j.withdraw(op);
    j.onAck(2, 'applied');
    expect(outcomes).toEqual(['WITHDRAWN']);
  });
});
