import { gitMaybe } from './git.js';

/** True when this clone was made with --depth: it lacks history, and with it older releases. */
export async function isShallowClone(root: string): Promise<boolean> {
  return (await gitMaybe(root, ['rev-parse', '--is-shallow-repository'])) === 'true';
}

const SHALLOW_ADVICE =
  'This clone is shallow, so older commits and releases are missing. Fix: run `git fetch --unshallow --tags`; ' +
  'in GitHub Actions give actions/checkout `fetch-depth: 0`.';

/** The shallow-clone advice where it applies, else nothing: a typo in a full clone needs no fetching. */
export async function shallowAdvice(root: string): Promise<string> {
  return (await isShallowClone(root)) ? ` ${SHALLOW_ADVICE}` : '';
}

/**
 * What to do when a release or ref is missing, fitted to this clone: a shallow
 * clone needs its history (and CI its checkout's fetch depth); a full clone
 * without a release needs tags fetched or a first release cut.
 */
export async function missingHistoryAdvice(root: string): Promise<string> {
  if (await isShallowClone(root)) return SHALLOW_ADVICE;
  return (
    'Fix: run `git fetch --tags` if the releases live on a remote; name a baseline with `--against <ref>`; ' +
    'or, if the project has never been released, cut the first release with `npm run release -- 0.1.0`.'
  );
}
