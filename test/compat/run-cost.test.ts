import { describe, expect, it } from 'vitest';
import { costLine } from '../../compat/report/text.js';
import { costOf } from '../../compat/run-gate.js';

describe("a gate run's cost line", () => {
  const gate = { user: 2_000_000, system: 500_000 };
  const peers = new Map([
    ['script', 9_000],
    ['decoders', 5_000],
  ]);

  it('counts what the gate waited for besides its peers (builds, git), so a run that only builds does not read as free', () => {
    const cost = costOf(gate, peers, 17_400);
    expect(cost).toEqual({ cpuSeconds: 19.9, gateCpuSeconds: 2.5, peerCpuSeconds: { script: 9, decoders: 5 }, otherCpuSeconds: 3.4 });
    expect(costLine(cost)).toBe('cost: 19.9 CPU-s (gate process 2.5; peers: script 9, decoders 5; builds and git 3.4)');
  });

  it('never counts less than nothing, and says nothing of other processes where /proc cannot tell', () => {
    // Peers still running when the report is written booked CPU not yet in the children's total.
    expect(costOf(gate, peers, 10_000)).toEqual({ cpuSeconds: 16.5, gateCpuSeconds: 2.5, peerCpuSeconds: { script: 9, decoders: 5 } });
    expect(costOf(gate, new Map(), undefined)).toEqual({ cpuSeconds: 2.5, gateCpuSeconds: 2.5, peerCpuSeconds: {} });
  });
});
