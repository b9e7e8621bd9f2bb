import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { run } from '../../../compat/cli.js';
import { buildManifest } from '../../../src/manifest/build-manifest.js';
import { createTempRepo, type TempRepo } from './temp-repo.js';

/**
 * A stand-in termwire project: its "build" writes a bin that prints
 * manifest.json, so the whole gate pipeline (resolve, build both, cache,
 * manifests, static rules, acknowledgements, report, exit code) runs for real
 * in seconds without tsc or npm ci. Its one commit is `release: v1.0.0`.
 */
const BUILD = `const fs = require('fs'); fs.mkdirSync('bin', { recursive: true });
fs.writeFileSync('bin/termwire.js', 'process.stdout.write(require("fs").readFileSync(__dirname + "/../manifest.json", "utf8"));');`;

export type StandInManifest = ReturnType<typeof buildManifest>;

export async function standInProject(cleanup: Array<() => void>): Promise<{ r: TempRepo; cache: string }> {
  const r = await createTempRepo();
  const cache = mkdtempSync(join(tmpdir(), 'termwire-e2e-cache-'));
  cleanup.push(r.remove, () => rmSync(cache, { recursive: true, force: true }));
  await r.commit('release: v1.0.0', {
    'package.json': JSON.stringify({ name: 'termwire', version: '1.0.0', scripts: { build: 'node build.cjs' } }),
    'build.cjs': BUILD,
    '.gitignore': 'bin/\n',
    'manifest.json': JSON.stringify(buildManifest('1.0.0')),
  });
  return { r, cache };
}

/** Writes a 1.1.0 manifest changed by `change` into the stand-in's working tree. */
export function editManifest(r: TempRepo, change: (m: StandInManifest) => void): void {
  const m = buildManifest('1.1.0');
  change(m);
  r.write('manifest.json', JSON.stringify(m));
}

/** Runs `termwire compat` in-process from `cwd`, capturing stdout and stderr. */
export async function compatInProcess(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await run(args);
    return { code, stdout, stderr };
  } finally {
    process.chdir(before);
    vi.restoreAllMocks();
  }
}
