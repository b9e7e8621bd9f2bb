import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { processIdentity, waitForExit } from '../helpers/process-alive.js';
import { waitFor } from '../helpers/wait-for.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempRepo, type TempRepo } from './helpers/temp-repo.js';
import { MATERIALISE_FORMAT } from '../../compat/baseline/materialise.js';

const DEADLINE_MS = 30_000;

const cleanup: Array<() => void> = [];
afterEach(() => cleanup.splice(0).forEach((f) => f()));

describe('interrupting a baseline build', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s removes the temp build directory', async (signal) => {
    const repo: TempRepo = await createTempRepo();
    const cacheDir = mkdtempSync(join(tmpdir(), 'termwire-signal-cache-'));
    const marker = join(cacheDir, `building-${signal}`);
    cleanup.push(repo.remove, () => rmSync(cacheDir, { recursive: true, force: true }));
    // A build that announces itself, then never finishes on its own.
    const commit = await repo.commit('release: v1.0.0', {
      'package.json': JSON.stringify({ name: 'tiny', version: '1.0.0', scripts: { build: 'node hang.cjs' } }),
      'hang.cjs': `require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)); setInterval(() => {}, 1000);`,
    });
    const child = execa(process.execPath, ['--import', 'tsx', 'test/compat/helpers/materialise-child.ts', repo.dir, commit, cacheDir], { cwd: process.cwd(), reject: false });
    await waitFor(() => existsSync(marker) && /^\d+$/.test(readFileSync(marker, 'utf8')), { what: 'the build to start and write its pid', timeoutMs: DEADLINE_MS });
    expect(readdirSync(cacheDir).some((n) => n.startsWith('.tmp-'))).toBe(true);
    // Its identity is taken while it surely runs: once it is gone its pid may name another process of this busy run.
    const buildPid = Number(readFileSync(marker, 'utf8'));
    const build = processIdentity(buildPid);
    expect(build, `the build script (pid ${buildPid}) runs`).toBeDefined();
    child.kill(signal);
    const result = await child;
    expect(result.exitCode).toBe(signal === 'SIGTERM' ? 143 : 130);
    expect(readdirSync(cacheDir).filter((n) => n.startsWith('.tmp-') || n.endsWith(`-f${MATERIALISE_FORMAT}`))).toEqual([]);
    // The build script npm spawned is stopped too, not orphaned. Its new parent may reap it late: a zombie counts as gone.
    await waitForExit(build!, { what: `the build script (pid ${buildPid}) to exit`, timeoutMs: DEADLINE_MS });
  });
});
