import { join } from 'node:path';
import { readOwnPackageVersion } from '../../src/manifest/build-manifest.js';
import type { BuildInfo } from '../build-info.js';
import { readBuildManifest } from '../manifest/read-manifest.js';
import type { Progress } from '../progress.js';
import { buildProject } from './build-project.js';
import { readBuildStamp, writeBuildStamp } from './build-stamp.js';
import { git } from './git.js';
import { workingTreeId } from './working-tree.js';

/** Builds the working tree with its own build script, unless dist/ already holds a build of exactly this tree. */
export async function buildWorkingTree(root: string, progress: Progress): Promise<BuildInfo> {
  const step = progress.step('build working tree');
  const tree = await workingTreeId(root);
  // dist/ is git-ignored, so the tree id names the sources exactly: a build of the same tree
  // (npm ci's prepare stamps its build too) is reused.
  if (readBuildStamp(root) === tree) {
    step.done('up to date');
  } else {
    await buildProject(root).catch((e: unknown) => {
      step.fail();
      throw e;
    });
    writeBuildStamp(root, tree); // the id from before the build: an edit made during it is not claimed
    step.done();
  }
  const head = await git(root, ['rev-parse', '--verify', 'HEAD']).catch(() => 'no-commit');
  return { dir: root, version: readOwnPackageVersion(join(root, 'package.json')), commit: `${head}+tree:${tree}`, manifest: await readBuildManifest(root) };
}
