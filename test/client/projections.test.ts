import { afterEach, describe, expect, it } from 'vitest';
import { type AnyProjection, projection, ProjectionRegistry } from '../../src/capabilities/projections.js';
import { TerminalClient } from '../../src/client/client.js';
import { decodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';
import { decodePayload } from '../../src/codec/payload.js';
import { HostRuntime } from '../../src/host/runtime.js';
import type { ScriptBackend } from '../../src/host/script-backend.js';
import { memoryLinkPair, type MemoryLink } from '../helpers/memory-link.js';
import { waitFor } from '../helpers/wait-for.js';
import { scriptTerminals } from '../host/script-hosts.js';

// Projections on the client's send paths (client-to-host frames), against the
// real host runtime over a SIMULATED in-process link: chosen by the host's echo,
// and before the echo (Subscribe) as for a host that negotiated nothing.

let host: HostRuntime | undefined;
let client: TerminalClient | undefined;
afterEach(() => {
  client?.close();
  host?.close();
});

function start(table: readonly AnyProjection[], hostCapabilities?: Record<string, number>) {
  const logged: string[] = [];
  const runtime = new HostRuntime({ terminals: scriptTerminals('a'), ...(hostCapabilities ? { capabilities: hostCapabilities } : {}) });
  host = runtime;
  const links: MemoryLink[] = [];
  client = new TerminalClient({
    random: () => 0.5,
    projections: new ProjectionRegistry(table, { log: (line) => logged.push(line) }),
    connect: async () => {
      const [clientEnd, hostEnd] = memoryLinkPair();
      runtime.accept(hostEnd);
      links.push(clientEnd);
      return clientEnd;
    },
  });
  client.start();
  const stream = client.subscribe('a');
  const sent = (opcode: number) =>
    links.flatMap((l) => l.sent).map((bytes) => decodeFrame(bytes)).flatMap((d) => (d.ok && d.frame.opcode === opcode ? [decodePayload(d.frame)] : [])).map((p) => (p.ok ? p.value : p.error));
  return { logged, stream, sent, runtime };
}

describe('projections on the client send paths', () => {
  it('projects Subscribe as for a host that negotiated nothing, and later frames by the echo', async () => {
    const { stream, sent } = start([
      projection({ name: 'tag-subscribe', opcode: 'Subscribe', capability: 'outputPause', purpose: 'tags the client', project: (s) => ({ ...s, client: { id: 'projected', type: 'test' } }) }),
      projection({ name: 'tag-request', opcode: 'SnapshotRequest', capability: 'outputPause', purpose: 'renames the request', project: (r) => ({ ...r, requestId: 'projected' }) }),
    ]);
    await waitFor(() => stream.state === 'live', { what: 'the stream live' });
    stream.requestSnapshot();
    await waitFor(() => sent(Op.SnapshotRequest).length === 1, { what: 'a SnapshotRequest sent' });
    expect(sent(Op.Subscribe)).toEqual([expect.objectContaining({ client: { id: 'projected', type: 'test' } })]);
    // outputPause was echoed, so the SnapshotRequest went out as written.
    expect(sent(Op.SnapshotRequest)).toEqual([{ requestId: 'r1' }]);
  });

  it('worked example: reports the host cause as the snapshot source where snapshotCause was echoed, the old source where not', async () => {
    for (const [hostCapabilities, expected] of [[undefined, ['subscribe', 'resume', 'request']], [{ outputPause: 1 }, ['subscribe', 'recovery', 'request']]] as const) {
      const { stream } = start([], hostCapabilities);
      const sources: Array<string | undefined> = [];
      stream.on('snapshot', (e) => sources.push(e.source));
      await waitFor(() => stream.state === 'live' && sources.length === 1, { what: 'the initial snapshot' });
      stream.hide();
      await waitFor(() => host!.pausedStreamCount() === 1, { what: 'the host pausing the stream' });
      stream.reveal();
      await waitFor(() => sources.length === 3, { what: 'the resume and request snapshots' });
      expect(sources).toEqual(expected);
      client!.close();
      host!.close();
    }
  });

  it('withholds a frame from a host that did not echo the capability, counts it, and rewrites Input the same way', async () => {
    const { stream, sent, runtime } = start(
      [
        projection({ name: 'no-resize', opcode: 'Resize', capability: 'snapshotCause', purpose: 'withholds Resize', project: () => null }),
        projection({ name: 'upper-input', opcode: 'Input', capability: 'snapshotCause', purpose: 'upper-cases input', project: (text) => text.toUpperCase() }),
      ],
      { ackOutput: 1, outputPause: 1 },
    );
    await waitFor(() => stream.state === 'live', { what: 'the stream live' });
    stream.resize(100, 30);
    stream.write('echo after\r');
    await waitFor(() => runtime.terminal('a')!.cols === 80 && (runtime.terminal('a')!.backend as ScriptBackend).inputLog().includes('ECHO AFTER'), { what: 'the input after the withheld Resize reaches the terminal' });
    expect(sent(Op.Resize)).toEqual([]);
    expect(stream.counters).toMatchObject({ projectionsWithheld: 1, projectionErrors: 0 });
  });

  it('does not send a frame whose projection throws: counted, logged, and the stream keeps working', async () => {
    const { stream, sent, logged, runtime } = start([
      projection({
        name: 'fragile-resize',
        opcode: 'Resize',
        capability: 'snapshotCause',
        purpose: 'throws on 99 columns',
        project: (r) => {
          if (r.cols === 99) throw new Error('99 columns');
          return r;
        },
      }),
    ], { ackOutput: 1 });
    await waitFor(() => stream.state === 'live', { what: 'the stream live' });
    stream.resize(99, 30);
    expect(stream.counters.projectionErrors).toBe(1);
    expect(logged).toEqual(["PROJECTION_FAILED: projection 'fragile-resize' on Resize (stream 1, seq 0) threw; frame not sent: 99 columns"]);
    stream.resize(100, 30);
    await waitFor(() => runtime.terminal('a')!.cols === 100, { what: 'the next Resize applied by the host' });
    expect(sent(Op.Resize)).toEqual([{ cols: 100, rows: 30 }]);
  });
});
