import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CompatError } from '../errors.js';

/** The slice of a build's public codec the harness uses to classify frames as that build would. */
export interface BuildCodec {
  decodeFrame(bytes: Uint8Array): { ok: true; frame: { opcode: number; streamId: number; seq: number; payload: Uint8Array } } | { ok: false; error: { code: string; message: string } };
  decodePayload(frame: unknown): { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };
  opcodeName(code: number): string;
}

/** Loads a build's own codec from its own dist, so each side's verdict is that build's, not ours. */
export async function loadBuildCodec(buildDir: string): Promise<BuildCodec> {
  const entry = pathToFileURL(join(buildDir, 'dist', 'src', 'index.js')).href;
  let module: Partial<BuildCodec>;
  try {
    module = (await import(entry)) as Partial<BuildCodec>;
  } catch (error) {
    throw new CompatError('PEER_UNAVAILABLE', `cannot load the codec of the build in ${buildDir} (${entry}): ${(error as Error).message}`);
  }
  if (typeof module.decodeFrame !== 'function' || typeof module.decodePayload !== 'function' || typeof module.opcodeName !== 'function') {
    throw new CompatError('PEER_UNAVAILABLE', `${entry} does not export decodeFrame, decodePayload and opcodeName`);
  }
  return module as BuildCodec;
}
