import { describe, expect, it } from 'vitest';
import { disturbancesOf } from '../../compat/journey/disturbances.js';
import { healthyScript, recording } from './helpers/recordings.js';

describe('what disturbed a walk', () => {
  it('names a client that gave up a link the proxy kept up, and a host that gave up on a client too slow to read', () => {
    const slowClient = recording('old', 'new', [...healthyScript(), ['hostToClient', 'burst', 'Error', 1, { code: 'LINK_DRAIN_TIMEOUT', message: '…' }]]);
    const clientGaveUp = { ...recording('new', 'old'), unplannedEnds: [{ step: 'drop', connection: 2, client: 'primary' as const }] };
    expect(disturbancesOf([recording('new', 'new'), slowClient, clientGaveUp])).toEqual([
      'old client 1.0.0 × new host 1.1.0: the host gave up on the primary client in step burst (LINK_DRAIN_TIMEOUT), a client too slow to read',
      'new client 1.1.0 × old host 1.0.0: the primary client gave up connection 2 in step drop, a link the proxy kept up',
    ]);
  });

  it('an Error a step provokes on purpose is no disturbance', () => {
    const provoked = recording('old', 'new', [...healthyScript(), ['hostToClient', 'provokedErrors', 'Error', 1, { code: 'UNGATED_FRAME', message: '…' }]]);
    expect(disturbancesOf([provoked])).toEqual([]);
  });
});
