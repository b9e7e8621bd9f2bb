import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The generator runs on a copy of this project's sources (real files, real tsc, real npm run regen), with a name
// no real opcode will take: the docs' example (Bell) may one day be a real opcode.
const root = join(import.meta.dirname, '..', '..');
const COPIED = ['src', 'compat', 'scripts', 'docs', 'fixtures', 'test', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

describe('npm run new-opcode', () => {
  let work: string;
  const copy = (name: string) => {
    const dir = join(work, name);
    for (const entry of COPIED) cpSync(join(root, entry), join(dir, entry), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    return dir;
  };
  const generate = (dir: string, ...args: string[]) => execa('npx', ['tsx', 'scripts/new-opcode.ts', ...args], { cwd: dir, reject: false, env: { NO_COLOR: '1' } });
  const snapshot = (dir: string) => COPIED.filter((e) => e.endsWith('.json')).concat(['src/codec/opcodes.ts', 'src/capabilities/registry.ts', 'compat/recording.ts', 'docs/compatibility.md']).map((f) => readFileSync(join(dir, f), 'utf8'));

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'termwire-new-opcode-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('writes every row a gated opcode needs, and the tree typechecks with the new step in the journey', async () => {
    const dir = copy('bell');
    const run = await generate(dir, 'GeneratorProbe', '--capability', 'generatorProbe', '--direction', 'hostToClient', '--summary', 'a frame the test makes up');
    expect(run.exitCode, run.stderr).toBe(0);
    const history = JSON.parse(readFileSync(join(dir, 'fixtures/wire-history.json'), 'utf8')) as { opcodes: Array<{ code: number; name: string }> };
    const probe = history.opcodes.find((o) => o.name === 'GeneratorProbe');
    expect(probe?.code).toBe(Math.max(...history.opcodes.filter((o) => o.name !== 'GeneratorProbe').map((o) => o.code)) + 1);
    expect(existsSync(join(dir, `fixtures/frames/${probe!.code}-GeneratorProbe.json`))).toBe(true);
    expect(readFileSync(join(dir, 'compat/journey/wire-view.ts'), 'utf8')).toContain(`GeneratorProbe: ${probe!.code} }`);
    expect(readFileSync(join(dir, 'docs/compatibility.md'), 'utf8')).toMatch(/\n\| title \|[^\n]*\n\| generatorProbe \|/);
    expect(run.stdout).toContain('Left to write by hand');
    // The step waits for its act's effect in every pairing, so a send the act provokes where nothing was negotiated happens inside it.
    expect(readFileSync(join(dir, 'compat/journey/generator-probe-step.ts'), 'utf8')).toContain('screenShows(o, SHOWN)');
    // The client's default meaning: the frame raised as a stream event, typed by the events table.
    expect(readFileSync(join(dir, 'src/client/stream-receive.ts'), 'utf8')).toContain("case Op.GeneratorProbe:\n      return stream.raise('generatorProbe', {});");
    expect(readFileSync(join(dir, 'src/client/stream-events.ts'), 'utf8')).toContain('  generatorProbe: Record<string, never>;');
    // What bounds how often the host sends it is the maintainer's to name: skipped, the tree does not typecheck.
    expect(run.stdout).toContain('src/host/send-bounds.ts');
    const unbounded = (() => {
      try {
        execFileSync('npx', ['tsc', '--noEmit', '-p', '.'], { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
        return '';
      } catch (e) {
        return String((e as { stdout?: string }).stdout);
      }
    })();
    expect(unbounded).toMatch(/src\/host\/send-bounds\.ts.*GeneratorProbe/s);
    nameSendBound(dir, 'GeneratorProbe');
    execFileSync('npx', ['tsc', '--noEmit', '-p', '.'], { cwd: dir, stdio: 'pipe' });
    const order = execFileSync('npx', ['tsx', '-e', "import('./compat/journey/script-journey.ts').then((m) => console.log(m.JOURNEY.map((s) => s.name).join(' ')))"], { cwd: dir, encoding: 'utf8' });
    // Right after the step it follows by default; what comes next is whatever the tree has there (a step a maintainer added too).
    expect(order).toContain('title generatorProbe ');
  }, 600_000); // a hang guard: a real tsc and regen of a copied tree take minutes on a loaded 2-core runner

  it('gives a JSON payload to the client as its typed event, and the tree typechecks', async () => {
    const dir = copy('json');
    const run = await generate(dir, 'GeneratorJsonProbe', '--capability', 'generatorJsonProbe', '--direction', 'hostToClient', '--payload', 'json', '--summary', 'a JSON frame the test makes up');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'src/client/stream-receive.ts'), 'utf8')).toContain("withPayload(stream, 'GeneratorJsonProbe', frame, (value) => stream.raise('generatorJsonProbe', value))");
    expect(readFileSync(join(dir, 'src/client/stream-events.ts'), 'utf8')).toContain("  generatorJsonProbe: PayloadOf<'GeneratorJsonProbe'>;");
    nameSendBound(dir, 'GeneratorJsonProbe');
    execFileSync('npx', ['tsc', '--noEmit', '-p', '.'], { cwd: dir, stdio: 'pipe' });
  }, 600_000);

  it('refuses bad input with exit 2 and writes nothing', async () => {
    const dir = copy('refused');
    const before = snapshot(dir);
    const unknownStep = await generate(dir, 'GeneratorProbe', '--capability', 'generatorProbe', '--direction', 'hostToClient', '--after', 'nosuch');
    expect([unknownStep.exitCode, unknownStep.stderr]).toEqual([2, expect.stringContaining('--after nosuch is not a step')]);
    const taken = await generate(dir, 'Ack', '--capability', 'generatorProbe', '--direction', 'hostToClient');
    expect([taken.exitCode, taken.stderr]).toEqual([2, expect.stringContaining('opcode Ack already exists')]);
    const unknownOption = await generate(dir, 'GeneratorProbe', '--capability', 'generatorProbe', '--direction', 'hostToClient', '--colour');
    expect(unknownOption.exitCode).toBe(2);
    // An anchor gone from one file: the files before it in the plan must not be written either.
    const docs = join(dir, 'docs/compatibility.md');
    writeFileSync(docs, readFileSync(docs, 'utf8').replace('\n| title |', '\n| renamed |'));
    const missingAnchor = await generate(dir, 'GeneratorProbe', '--capability', 'generatorProbe', '--direction', 'hostToClient');
    expect([missingAnchor.exitCode, missingAnchor.stderr]).toEqual([2, expect.stringContaining('nothing was written')]);
    const after = snapshot(dir);
    after[after.length - 1] = readFileSync(docs, 'utf8').replace('\n| renamed |', '\n| title |');
    expect(after).toEqual(before);
    expect(existsSync(join(dir, 'compat/journey/generator-probe-step.ts'))).toBe(false);
  }, 600_000); // a hang guard, as above
});

/** What a maintainer writes by hand for a new host-sent opcode: the option that bounds how often the host sends it. */
function nameSendBound(dir: string, opcode: string): void {
  const path = join(dir, 'src/host/send-bounds.ts');
  const anchor = '} as const satisfies Record<HostSentOpcode';
  const text = readFileSync(path, 'utf8');
  writeFileSync(path, text.replace(anchor, `  ${opcode}: { limit: 'maxErrorRepliesPerSecond', how: 'the test says so' },\n${anchor}`));
}
