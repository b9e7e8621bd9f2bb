import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CompatError } from '../../compat/errors.js';
import { readBuildManifest } from '../../compat/manifest/read-manifest.js';
import { writeReport } from '../../compat/cli.js';
import { COMPAT_COMMAND } from '../../compat/command.js';
import { main } from '../../src/cli/main.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import { compatInProcess as compat, editManifest as edit, standInProject } from './helpers/stand-in-project.js';
import { createTempRepo, type TempRepo } from './helpers/temp-repo.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  cleanup.splice(0).forEach((f) => f());
  vi.restoreAllMocks();
});

async function repo(): Promise<TempRepo> {
  const r = await createTempRepo();
  cleanup.push(r.remove);
  await r.commit('initial', { 'package.json': '{"name":"termwire","version":"0.0.0"}' });
  return r;
}

describe('termwire compat CLI', () => {
  it('no baseline: exit 2 naming the fix, never 0', async () => {
    const r = await repo();
    const { code, stdout } = await compat(r.dir, []);
    expect(code).toBe(2);
    expect(stdout).toContain('could not compare');
    expect(stdout).toContain('git fetch --tags');
    const staticOnly = await compat(r.dir, ['--static-only', '--format', 'json']);
    expect(staticOnly.code).toBe(2);
    expect(JSON.parse(staticOnly.stdout)).toMatchObject({ status: 'cannotCompare', exitCode: 2, error: { kind: 'cannotCompare', code: 'NO_BASELINE' } });
  });

  it('a release whose tree equals the working tree: exit 2, SAME_TREE', async () => {
    const r = await repo();
    await r.commit('release: v0.1.0');
    const { code, stdout } = await compat(r.dir, ['--format', 'json']);
    expect(code).toBe(2);
    expect(JSON.parse(stdout).error.code).toBe('SAME_TREE');
  });

  it('bad options and refs are usage errors (exit 2) before git runs', async () => {
    const r = await repo();
    expect((await compat(r.dir, ['--against', '--upload-pack=x'])).code).toBe(2);
    const badRef = await compat(r.dir, ['--against=-x']);
    expect(badRef.code).toBe(2);
    expect(badRef.stderr).toContain('leading "-"');
    const badFormat = await compat(r.dir, ['--format', 'xml']);
    expect(badFormat.stderr).toContain('expected one of text, json, junit, github');
    const unknown = await compat(r.dir, ['--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('termwire compat: unknown option --bogus (termwire compat --help lists the options)\n');
    const lastN = await compat(r.dir, ['--against', 'last:99']);
    expect(lastN.stderr).not.toMatch(/BAD_REF|maxLastN/);
  });

  it('--passes takes known passes with the script among them, else a usage error naming what is wrong', async () => {
    const r = await repo();
    const unknown = await compat(r.dir, ['--passes', 'script,ptty']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown pass "ptty"; expected some of script, pty, restart, stream, lifetime');
    const noScript = await compat(r.dir, ['--passes', 'restart']);
    expect(noScript.code).toBe(2);
    expect(noScript.stderr).toContain('the script pass is always walked; name it (e.g. --passes script,restart)');
    const staticOnly = await compat(r.dir, ['--passes', 'script', '--static-only']);
    expect(staticOnly.code).toBe(2);
    expect(staticOnly.stderr).toContain('--passes chooses the script\'s passes: --static-only walks no journey');
  });

  it('--output that cannot be written is a one-line usage error before the run starts', async () => {
    const r = await repo();
    const { code, stdout, stderr } = await compat(r.dir, ['--output', join(r.dir, 'no-such-dir', 'report.xml'), '--format', 'junit']);
    expect(code).toBe(2);
    expect(stderr).toBe(`termwire compat: --output ${join(r.dir, 'no-such-dir', 'report.xml')} cannot be written (its directory does not exist) (termwire compat --help lists the options)\n`);
    expect(stdout).toBe('');
  });

  it('a report whose write fails is not lost: it goes to stdout, and the exit is 2', () => {
    let stdout = '';
    let stderr = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
    const report = { status: 'compatible', exitCode: 0, baselines: [{ label: 'v1.0.0', commit: 'f'.repeat(40), version: '1.0.0' }], staticOnly: true, rulesRun: [], findings: [], acknowledged: [], staleAcknowledgements: [] } as const;
    const code = writeReport(report, { format: 'json', output: join(tmpdir(), `termwire-gone-${process.pid}`, 'r.json') });
    vi.restoreAllMocks();
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'compatible' });
    expect(stderr).toContain('could not write the report to');
  });

  it('an unwritable cache directory is one line, exit 2, not an internal error', async () => {
    const r = await repo();
    await r.commit('release: v0.1.0');
    r.write('change.txt', 'x');
    const { code, stdout } = await compat(r.dir, ['--cache-dir', join(r.dir, 'package.json', 'cache')]);
    expect(code).toBe(2);
    expect(stdout).toMatch(/^termwire compat: could not compare \(exit 2\): the cache directory for built baselines .* cannot be created or written \(a part of the path is a file, not a directory\)\n$/);
    expect(stdout).not.toContain('internal error');
  });

  it('a checkout that is not termwire is told so, exit 2', async () => {
    const r = await createTempRepo();
    cleanup.push(r.remove);
    await r.commit('initial', { 'package.json': '{"name":"something-else","version":"1.0.0"}' });
    const { code, stdout } = await compat(r.dir, ['--format', 'json']);
    expect(code).toBe(2);
    expect(JSON.parse(stdout).error).toMatchObject({ code: 'NOT_A_TERMWIRE_PROJECT', message: expect.stringContaining('is not a termwire checkout') });
  });

  it('--help exits 0 and documents the exit codes', async () => {
    const r = await repo();
    const { code, stdout } = await compat(r.dir, ['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('2 could not compare');
    expect(stdout).toContain('--acknowledgements <file>');
  });

  it('--format github writes annotations and appends the step summary', async () => {
    const r = await repo();
    const summary = join(r.dir, '..', `summary-${process.pid}.md`);
    cleanup.push(() => rmSync(summary, { force: true }));
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary);
    try {
      const { code, stdout } = await compat(r.dir, ['--format', 'github']);
      expect(code).toBe(2);
      expect(stdout).toMatch(/^::error title=termwire compat could not compare::no release found/);
      expect(readFileSync(summary, 'utf8')).toContain('### termwire compat: could not compare');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('termwire (the command itself)', () => {
  async function termwire(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
    try {
      return { code: await main(args, { compat: COMPAT_COMMAND }), stdout, stderr };
    } finally {
      vi.restoreAllMocks();
    }
  }

  it('termwire help <command> shows that command\'s help', async () => {
    const { code, stdout } = await termwire(['help', 'compat']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: termwire compat/);
    expect((await termwire(['help', 'nope'])).stderr).toContain("unknown command 'nope'");
  });

  it('the installed command (bin/termwire.js) offers the gate, which the protocol stack does not import, first in its help', () => {
    const bin = fileURLToPath(new URL('../../bin/termwire.js', import.meta.url));
    const help = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help.split('Commands:\n')[1]).toMatch(/^ {2}compat {5}check the working tree/);
    expect(execFileSync(process.execPath, [bin, 'compat', '--help'], { encoding: 'utf8' })).toMatch(/^Usage: termwire compat/);
  });

  it('an unknown flag is an unknown option, in one line', async () => {
    const { code, stderr } = await termwire(['--bogus']);
    expect(code).toBe(2);
    expect(stderr).toBe("termwire: unknown option '--bogus' (termwire --help lists the commands and options)\n");
  });
});

describe('reading a build manifest', () => {
  // A stand-in build directory whose bin prints a fixed manifest: it checks the
  // reader's validation without building a whole checkout.
  function fakeBuild(script: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'termwire-fake-build-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'termwire.js'), script);
    chmodSync(join(dir, 'bin', 'termwire.js'), 0o755);
    return dir;
  }

  it('runs the build’s own bin and validates what it prints', async () => {
    const m = buildManifest('9.9.9');
    const dir = fakeBuild(`process.stdout.write(${JSON.stringify(JSON.stringify(m))});`);
    expect((await readBuildManifest(dir)).packageVersion).toBe('9.9.9');
  });

  it.each([
    ['an old build without the command', 'console.error("unknown command manifest"); process.exit(2);', 'exited 2'],
    ['garbage', 'process.stdout.write("not json");', 'not JSON'],
    ['the wrong shape', 'process.stdout.write(JSON.stringify({ manifestFormat: 1 }));', 'does not match manifest format'],
  ])('%s is MANIFEST_UNAVAILABLE', async (_name, script, why) => {
    const e = await readBuildManifest(fakeBuild(script)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CompatError);
    expect((e as CompatError).code).toBe('MANIFEST_UNAVAILABLE');
    expect((e as CompatError).message).toContain(why);
  });
});

describe('termwire compat end to end on a stand-in project', () => {
  // The project under test is a stand-in (helpers/stand-in-project.ts): the whole pipeline runs for real in seconds.
  const project = () => standInProject(cleanup);

  it('an additive optional field passes the static pass (exit 0)', async () => {
    const { r, cache } = await project();
    edit(r, (m) => {
      const start = m.opcodes.find((o) => o.name === 'SnapshotStart')!;
      (start.schema as { properties: Record<string, unknown> }).properties.hiddenOutputReason = { type: 'string' };
    });
    const { code, stdout } = await compat(r.dir, ['--static-only', '--format', 'json', '--cache-dir', cache]);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'compatible', findings: [], baselines: [{ label: 'v1.0.0' }] });
    expect(code).toBe(0);
  });

  it('a removed field fails (exit 1) with the direction; acknowledging it passes', async () => {
    const { r, cache } = await project();
    edit(r, (m) => {
      const start = m.opcodes.find((o) => o.name === 'SnapshotStart')!;
      delete (start.schema as { properties: Record<string, unknown> }).properties.source;
    });
    const failed = await compat(r.dir, ['--static-only', '--cache-dir', cache]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('PAYLOAD_FIELD_REMOVED  old client × new host');
    expect(failed.stdout).toContain('SnapshotStart.source');
    const entry = { ruleId: 'PAYLOAD_FIELD_REMOVED', direction: 'old client × new host', subject: 'SnapshotStart.source', reason: 'no reader ever used source', owner: '@wire-team' };
    // Far ahead of any real date, and no more than 180 days after the faked one.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T12:00:00Z'));
    try {
      r.write('compat/acknowledged-breaks.json', JSON.stringify([{ ...entry, expires: '2030-03-01' }]));
      const acked = await compat(r.dir, ['--static-only', '--cache-dir', cache]);
      expect(acked.stdout).toContain('~ acknowledged PAYLOAD_FIELD_REMOVED · old client × new host · SnapshotStart.source (owner @wire-team, until 2030-03-01): 1 finding(s) in old client × new host; no reader ever used source');
      expect(acked.code).toBe(0);
      // The format before owner and expiry is refused, naming what to add.
      r.write('compat/acknowledged-breaks.json', JSON.stringify([{ ...entry, owner: undefined }]));
      const old = await compat(r.dir, ['--static-only', '--cache-dir', cache, '--format', 'json']);
      expect(old.code).toBe(2);
      expect(JSON.parse(old.stdout).error).toMatchObject({ code: 'BAD_ACKNOWLEDGEMENTS', message: expect.stringContaining('entry 0 (PAYLOAD_FIELD_REMOVED · old client × new host · SnapshotStart.source) is in the old format: add "owner" (who answers for the break), "expires" (YYYY-MM-DD') });
    } finally {
      vi.useRealTimers();
    }
  });

  it('without --static-only, a journey that cannot run is exit 2, never a pass', async () => {
    // The stand-in has no peers to run, so the journey step must fail; whatever the
    // runner's reason, the gate reports it could not compare.
    const { r, cache } = await project();
    edit(r, () => undefined);
    const { code, stdout } = await compat(r.dir, ['--format', 'json', '--cache-dir', cache]);
    const report = JSON.parse(stdout);
    expect(report.status).not.toBe('compatible');
    expect(report.error).toBeDefined();
    expect(code).toBe(2);
  });
});
