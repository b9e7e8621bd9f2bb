import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readOwnPackageVersion } from '../../src/manifest/build-manifest.js';
import type { BuildInfo } from '../build-info.js';
import { readBuildManifest } from '../manifest/read-manifest.js';
import type { Progress } from '../progress.js';
import { buildProject } from './build-project.js';
import { git } from './git.js';
import { workingTreeId } from './working-tree.js';

const BUILD_STAMP = join('dist', '.termwire-tree');

function readWorkingTreeBuildStamp(root: string): string | undefined {
  try {
    return readFileSync(join(root, BUILD_STAMP), 'utf8').trim();
  } catch {
    return undefined;
  }
}

function writeWorkingTreeBuildStamp(root: string, tree: string): void {
  // In dist/ on purpose: deleting the build deletes the claim that it is up to date.
  mkdirSync(dirname(join(root, BUILD_STAMP)), { recursive: true });
  writeFileSync(join(root, BUILD_STAMP), tree + '\n');
}

/** Builds the working tree with its own build script, unless dist/ already holds a build of exactly this tree. */
export async function buildWorkingTree(root: string, progress: Progress): Promise<BuildInfo> {
  const step = progress.step('build working tree');
  const tree = await workingTreeId(root);
  // dist/ is git-ignored, so the tree id names the sources exactly: a build of the same tree is reused.
  if (readWorkingTreeBuildStamp(root) === tree) {
    step.done('up to date');
  } else {
    await buildProject(root).catch((e: unknown) => {
      step.fail();
      throw e;
    });
    writeWorkingTreeBuildStamp(root, tree);
    step.done();
  }
  const head = await git(root, ['rev-parse', '--verify', 'HEAD']).catch(() => 'no-commit');
  return { dir: root, version: readOwnPackageVersion(join(root, 'package.json')), commit: `${head}+tree:${tree}`, manifest: await readBuildManifest(root) };
}
