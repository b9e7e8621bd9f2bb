import { describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../src/capabilities/defaults.js';
import { resolveClientOptions } from '../../src/client/options.js';
import { ClientStream } from '../../src/client/stream.js';
import type { ClientStreamEvents } from '../../src/client/stream-events.js';
import { decodeFrame } from '../../src/codec/header.js';
import { OPCODES } from '../../src/codec/opcodes.js';
import { decodePayloadAs, encodePayload } from '../../src/codec/payload.js';

/** A stream with no link: what it sends is kept, and frames are fed to it by hand. */
function stream(capabilities = DEFAULT_CLIENT_CAPABILITIES) {
  const sent: Uint8Array[] = [];
  const options = resolveClientOptions({ connect: () => Promise.reject(new Error('not used')), capabilities: { ...capabilities } as Record<string, number> });
  const s = new ClientStream(1, 't', { options, send: (f) => sent.push(f), nextRequestId: () => 'r1', released: () => {} }, { outputSink: (_text, delivered) => delivered() });
  const subscribes = () =>
    sent.flatMap((bytes) => {
      const d = decodeFrame(bytes);
      if (!d.ok || d.frame.opcode !== OPCODES.Subscribe.code) return [];
      const payload = decodePayloadAs('Subscribe', d.frame);
      return payload.ok ? [payload.value] : [];
    });
  return { s, subscribes };
}

const echo = (seq: number, extra: object = {}) => ({ cols: 80, rows: 24, seq, capabilities: { ...DEFAULT_CLIENT_CAPABILITIES } as Record<string, number>, instanceId: 'i1', ...extra });
const output = (s: ClientStream, text: string, seq: number) => s.handleFrame({ opcode: OPCODES.Output.code, streamId: 1, seq, payload: encodePayload('Output', text) } as Parameters<ClientStream['handleFrame']>[0]);
const snapshotAt = (s: ClientStream, seq: number) => {
  s.handleFrame({ opcode: OPCODES.SnapshotStart.code, streamId: 1, seq, payload: encodePayload('SnapshotStart', { kind: 'scrollback', cols: 80, rows: 24, seq, cause: 'subscribe' }) } as Parameters<ClientStream['handleFrame']>[0]);
  s.handleFrame({ opcode: OPCODES.SnapshotEnd.code, streamId: 1, seq, payload: new Uint8Array() } as Parameters<ClientStream['handleFrame']>[0]);
};

/** Live at seq 10 with output applied up to 16, then the link lost. */
function liveThenLost(capabilities = DEFAULT_CLIENT_CAPABILITIES) {
  const t = stream(capabilities);
  t.s.connectionUp();
  t.s.subscribed(echo(10));
  snapshotAt(t.s, 10);
  output(t.s, 'abcdef', 16);
  return t;
}

describe("a stream's resume point", () => {
  it('is the seq of the last output applied, sent with the instance in the next Subscribe', () => {
    const { s, subscribes } = liveThenLost();
    s.connectionDown();
    s.connectionUp();
    expect(subscribes()[1]).toMatchObject({ resumeFrom: 16, resumeInstanceId: 'i1' });
  });

  it('is not sent by a client that does not advertise outputResume', () => {
    const { outputResume: _, ...older } = DEFAULT_CLIENT_CAPABILITIES;
    const { s, subscribes } = liveThenLost(older);
    s.connectionDown();
    s.connectionUp();
    expect(subscribes()[1]!.resumeFrom).toBeUndefined();
  });

  it('is not kept while a snapshot is awaited, or while the stream is hidden', () => {
    const a = liveThenLost();
    output(a.s, 'xyz', 40); // a gap: a snapshot is asked for, and what came before is no point to resume from
    a.s.connectionDown();
    a.s.connectionUp();
    expect(a.subscribes()[1]!.resumeFrom).toBeUndefined();

    const b = liveThenLost();
    b.s.hide();
    b.s.connectionDown();
    b.s.connectionUp();
    expect(b.subscribes()[1]!.resumeFrom).toBeUndefined();
  });

  it('survives a link lost before its subscribed event, and is spent by the next one', () => {
    const { s, subscribes } = liveThenLost();
    s.connectionDown();
    s.connectionUp();
    s.connectionDown(); // lost while subscribing
    s.connectionUp();
    expect(subscribes()[2]).toMatchObject({ resumeFrom: 16 });
    s.subscribed(echo(16, { resume: 'resumed' }));
    s.connectionDown(); // nothing applied since: the point is 16 again, from the tracker
    s.connectionUp();
    expect(subscribes()[3]).toMatchObject({ resumeFrom: 16 });
  });

  it('continues output from the point when the host resumed, with no snapshot', () => {
    const { s } = liveThenLost();
    let seen: ClientStreamEvents['subscribed'] | undefined;
    const texts: string[] = [];
    s.on('subscribed', (e) => (seen = e));
    s.on('output', (e) => texts.push(e.text));
    s.connectionDown();
    s.connectionUp();
    s.subscribed(echo(16, { resume: 'resumed' }));
    output(s, 'ghi', 19);
    expect(seen?.resume).toEqual({ outcome: 'resumed', fromSeq: 16, skippedBytes: 0 });
    expect(texts).toEqual(['ghi']);
    expect(s.counters.gaps).toBe(0);
  });

  it('takes the size the host names when it resumed: a resize at the resume point reached the client only there', async () => {
    const options = resolveClientOptions({ connect: () => Promise.reject(new Error('not used')) });
    const s = new ClientStream(1, 't', { options, send: () => {}, nextRequestId: () => 'r1', released: () => {} }, { viewport: { cols: 80, rows: 24 } });
    s.connectionUp();
    s.subscribed(echo(10));
    snapshotAt(s, 10);
    s.connectionDown();
    s.connectionUp();
    s.subscribed(echo(10, { cols: 100, rows: 30, resume: 'resumed' }));
    await s.whenIdle();
    expect(s.screenLines()).toHaveLength(30);
    s.unsubscribe();
  });

  it('awaits the snapshot when the host did not resume, and says how much it skipped', () => {
    for (const [extra, outcome, skipped] of [
      [{ resume: 'beyondHistory' }, 'beyondHistory', 84],
      [{ resume: 'otherInstance', instanceId: 'i2' }, 'otherInstance', undefined],
      // A host that did not echo outputResume cannot have resumed, whatever its event says.
      [{ capabilities: {}, resume: 'resumed' }, 'unsupported', 84],
    ] as const) {
      const { s } = liveThenLost();
      let seen: ClientStreamEvents['subscribed'] | undefined;
      const texts: string[] = [];
      s.on('subscribed', (e) => (seen = e));
      s.on('output', (e) => texts.push(e.text));
      s.connectionDown();
      s.connectionUp();
      s.subscribed(echo(100, extra));
      output(s, 'late', 104); // covered by the snapshot that follows
      expect(seen?.resume).toEqual({ outcome, fromSeq: 16, ...(skipped === undefined ? {} : { skippedBytes: skipped }) });
      expect(texts).toEqual([]);
    }
  });
});
