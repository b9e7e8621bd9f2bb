import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';

/** A throwaway git repository under os.tmpdir(); real git, no network. */
export interface TempRepo {
  readonly dir: string;
  git(...args: string[]): Promise<string>;
  write(path: string, content: string): void;
  /** Writes the files, commits them with `subject`, returns the commit id. */
  commit(subject: string, files?: Record<string, string>): Promise<string>;
  remove(): void;
}

export async function createTempRepo(prefix = 'termwire-compat-test-'): Promise<TempRepo> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const git = async (...args: string[]) => String((await execa('git', args, { cwd: dir, stripFinalNewline: true })).stdout);
  await git('init', '-q', '-b', 'main');
  await git('config', 'user.email', 'test@example.invalid');
  await git('config', 'user.name', 'termwire test');
  await git('config', 'commit.gpgsign', 'false');
  await git('config', 'tag.gpgsign', 'false');
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  return {
    dir,
    git,
    write,
    async commit(subject, files = { 'file.txt': `${subject}\n` }) {
      for (const [p, c] of Object.entries(files)) write(p, c);
      await git('add', '-A');
      await git('commit', '-q', '--allow-empty', '-m', subject);
      return git('rev-parse', 'HEAD');
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
