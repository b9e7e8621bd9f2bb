import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleCodeDigest, sameCode, sameDecoders } from '../../compat/journey/same-code.js';

// Two copies of this project's own compiled peers (npm test builds dist first), one edited per case.
const root = join(import.meta.dirname, '..', '..');

describe("which role's code the working tree left as the release's", () => {
  let work: string;
  const copy = (name: string) => {
    const dir = join(work, name);
    cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(dir, file));
    return dir;
  };
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'termwire-same-code-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('is the same in both roles for an identical build', () => {
    expect(sameCode(copy('a'), copy('b'))).toEqual({ client: true, host: true });
  });

  it('a change in host code leaves the client the same, and the other way round', () => {
    const release = copy('release');
    const host = copy('host-edited');
    appendFileSync(join(host, 'dist/src/host/runtime.js'), '\n// edited\n');
    expect(sameCode(release, host)).toEqual({ client: true, host: false });
    const client = copy('client-edited');
    appendFileSync(join(client, 'dist/src/client/client.js'), '\n// edited\n');
    expect(sameCode(release, client)).toEqual({ client: false, host: true });
  });

  it('a change in code both roles import, a worker started by URL, the native addon the host loads, or the package changes the roles that reach it', () => {
    const release = copy('release-2');
    const codec = copy('codec-edited');
    appendFileSync(join(codec, 'dist/src/codec/header.js'), '\n// edited\n');
    expect(sameCode(release, codec)).toEqual({ client: false, host: false });
    const worker = copy('worker-edited');
    appendFileSync(join(worker, 'dist/src/host/screen-worker.js'), '\n// edited\n');
    expect(sameCode(release, worker).host).toBe(false);
    const addon = copy('addon-edited');
    appendFileSync(join(addon, 'dist/native/pty-spawn.node'), 'edited');
    expect(sameCode(release, addon)).toEqual({ client: true, host: false });
    const codecPeer = copy('codec-peer-edited');
    appendFileSync(join(codecPeer, 'dist/compat/peer/codec-peer.js'), '\n// edited\n');
    expect(sameCode(release, codecPeer)).toEqual({ client: false, host: false });
    const pkg = copy('version-edited');
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'termwire', version: '9.9.9' }));
    expect(sameCode(release, pkg)).toEqual({ client: false, host: false });
  });

  it('the decoders are the same unless the code the codec peer runs changed', () => {
    const release = copy('release-3');
    const host = copy('host-edited-3');
    appendFileSync(join(host, 'dist/src/host/runtime.js'), '\n// edited\n');
    expect(sameDecoders(release, host)).toBe(true);
    const codec = copy('codec-edited-3');
    appendFileSync(join(codec, 'dist/src/codec/payload.js'), '\n// edited\n');
    expect(sameDecoders(release, codec)).toBe(false);
    expect(sameDecoders(work, work)).toBe(false);
  });

  it('says nothing when a role module computes what it imports, or a build has no peers', () => {
    const computed = copy('computed');
    appendFileSync(join(computed, 'dist/src/client/client.js'), '\nconst where = "./x.js"; export const late = () => import(where);\n');
    expect(roleCodeDigest(computed, 'client')).toBeUndefined();
    for (const [role, file, line] of [
      ['host', 'dist/src/host/runtime.js', 'const where = "./w.js"; export const w = () => new Worker(where);'],
      ['client', 'dist/src/client/client.js', 'export const r = (name) => require(name);'],
      ['host', 'dist/src/host/runtime.js', 'export const t = (k) => import(`./x/${k}.js`);'],
    ] as const) {
      const dir = copy(`computed-${role}-${line.length}`);
      appendFileSync(join(dir, file), `\n${line}\n`);
      expect(roleCodeDigest(dir, role), line).toBeUndefined();
    }
    expect(roleCodeDigest(work, 'host')).toBeUndefined();
    expect(sameCode(work, work)).toEqual({ client: false, host: false });
  });
});
