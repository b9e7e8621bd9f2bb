import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { type WireManifest, wireManifestSchema } from '../../src/manifest/manifest-schema.js';
import { tailLines } from '../baseline/build-project.js';
import { CompatError } from '../errors.js';

export const MANIFEST_TIMEOUT_MS = 30_000;

/**
 * Asks a build for its manifest by running ITS OWN dist: the harness's copy of
 * the opcode table would describe the harness, not the build under test.
 */
export async function readBuildManifest(buildDir: string): Promise<WireManifest> {
  const bin = join(buildDir, 'bin', 'termwire.js');
  if (!existsSync(bin)) throw new CompatError('MANIFEST_UNAVAILABLE', `${bin} does not exist; the build has no termwire command`);
  const result = await execa(process.execPath, [bin, 'manifest'], { cwd: buildDir, reject: false, timeout: MANIFEST_TIMEOUT_MS, env: { NO_COLOR: '1' } });
  if (result.exitCode !== 0) {
    throw new CompatError(
      'MANIFEST_UNAVAILABLE',
      `\`node ${bin} manifest\` exited ${result.exitCode ?? result.signal}; a baseline from before \`termwire manifest\` existed cannot be compared (use a newer --against). Output:\n${tailLines(String(result.stderr || result.stdout))}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(String(result.stdout));
  } catch (e) {
    throw new CompatError('MANIFEST_UNAVAILABLE', `${bin} manifest printed something that is not JSON: ${(e as Error).message}`);
  }
  const parsed = wireManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CompatError('MANIFEST_UNAVAILABLE', `${bin} manifest does not match manifest format: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return parsed.data;
}
