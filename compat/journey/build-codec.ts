import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The slice of a build's public codec the harness uses to classify frames as that build would. */
export interface BuildCodec {
  decodeFrame(bytes: Uint8Array): { ok: true; frame: { opcode: number; streamId: number; seq: number; payload: Uint8Array } } | { ok: false; error: { code: string; message: string } };
  decodePayload(frame: unknown): { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };
  opcodeName(code: number): string;
}

/** Loads a build's own codec from its own dist, so each side's verdict is that build's, not ours. */
export async function loadBuildCodec(buildDir: string): Promise<BuildCodec> {
  const entry = pathToFileURL(join(buildDir, 'dist', 'src', 'index.js')).href;
  const module = (await import(entry)) as Partial<BuildCodec>;
  if (typeof module.decodeFrame !== 'function' || typeof module.decodePayload !== 'function' || typeof module.opcodeName !== 'function') {
    throw new Error(`${entry} does not export decodeFrame, decodePayload and opcodeName`);
  }
  return module as BuildCodec;
}
