import type { PairingRecording } from '../recording.js';
import type { JourneyRecordings } from './run.js';

/** Every pairing one walk of the script recorded: the four on the script, the PTY, restart and byte-stream passes. */
export function pairingsOfWalk(r: JourneyRecordings): PairingRecording[] {
  const passes = [r.pty, r.restart, ...(r.stream ? [r.stream] : []), ...(r.lifetime ? [r.lifetime] : [])];
  return [r.newNew, r.oldOld, r.oldClientNewHost, r.newClientOldHost, ...passes.flatMap((p) => Object.values(p) as PairingRecording[])];
}

/**
 * What kept a walk from walking the journey it describes: a client that ended
 * a connection no step ended (UnplannedEnd), one line per connection.
 */
export function disturbancesOf(pairings: readonly PairingRecording[]): string[] {
  return pairings.flatMap((p) =>
    (p.unplannedEnds ?? []).map((end) => `${p.client} client ${p.clientVersion} × ${p.host} host ${p.hostVersion}: the ${end.client} client gave up connection ${end.connection} in step ${end.step}, a link the proxy kept up`),
  );
}
