import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa, execaSync } from 'execa';

export const ROOT = resolve(import.meta.dirname, '../..');

/** Every `--option` that `termwire compat --help` lists (run from this checkout's dist/: `npm run build` first). */
export function compatHelpOptions(): Set<string> {
  const help = execaSync('node', [join(ROOT, 'bin', 'termwire.js'), 'compat', '--help']).stdout;
  return new Set(help.match(/--[a-z][a-z-]*/g) ?? []);
}

/** The `--options` among argv (values that follow them are not options). */
export const optionsIn = (argv: readonly string[]) => argv.filter((a) => /^--[a-z]/.test(a)).map((a) => a.replace(/=.*/, ''));

/**
 * The YAML as JSON, through python3's PyYAML, or undefined where PyYAML is not
 * installed (the node side has no YAML parser; the text checks run regardless).
 */
export function loadYaml(path: string): Record<string, unknown> | undefined {
  if (execaSync('python3', ['-c', 'import yaml'], { reject: false }).exitCode !== 0) return undefined;
  const r = execaSync('python3', ['-c', 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', path], { reject: false });
  if (r.exitCode !== 0) throw new Error(`${path} does not parse as YAML:\n${String(r.stderr)}`);
  return JSON.parse(String(r.stdout)) as Record<string, unknown>;
}

/** The `run: |` block scalars of a YAML file, dedented: the shell scripts a workflow or action runs. */
export function runBlocks(yaml: string): string[] {
  const lines = yaml.split('\n');
  const blocks: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)(- )?run: \|\s*$/.exec(lines[i]!);
    if (!m) continue;
    const keyIndent = m[1]!.length + (m[2] ? 2 : 0);
    const body: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1]!.trim() === '' || /^\s*/.exec(lines[i + 1]!)![0].length > keyIndent)) body.push(lines[++i]!);
    const indent = Math.min(...body.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length));
    blocks.push(body.map((l) => l.slice(indent)).join('\n').trimEnd() + '\n');
  }
  return blocks;
}

export interface Sandbox {
  readonly dir: string;
  /** A directory for PATH with `npm` (and `node`) stand-ins that log `<cwd>\t<argv...>` to npm.log / node.log and print `fake npm output`. */
  readonly fakeBin: string;
  log(name: 'npm' | 'node'): string[][];
  remove(): void;
}

/** A temp directory with logging stand-ins for npm (always) and node (when asked: it replaces the real one). */
export function sandbox(fakeNode: boolean): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-ci-test-'));
  const fakeBin = join(dir, 'fake-bin');
  mkdirSync(fakeBin);
  for (const name of fakeNode ? ['npm', 'node'] : ['npm']) {
    const log = join(dir, `${name}.log`);
    writeFileSync(join(fakeBin, name), `#!/bin/sh\n{ printf '%s' "$(pwd -P)"; printf '\\t%s' "$@"; echo; } >> '${log}'\necho 'fake ${name} output'\n`);
    chmodSync(join(fakeBin, name), 0o755);
  }
  return {
    dir,
    fakeBin,
    log: (name) => {
      const path = join(dir, `${name}.log`);
      return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')) : [];
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An empty git repository in `dir` on branch main; returns a git runner for it. */
export async function gitRepo(dir: string): Promise<(...args: string[]) => Promise<string>> {
  mkdirSync(dir, { recursive: true });
  const git = async (...args: string[]) => String((await execa('git', args, { cwd: dir, stripFinalNewline: true })).stdout);
  await git('init', '-q', '-b', 'main');
  await git('config', 'user.email', 'test@example.invalid');
  await git('config', 'user.name', 'termwire test');
  await git('config', 'commit.gpgsign', 'false');
  return git;
}
