/**
 * Why the gate could not compare two builds. Always exit 2: the gate never
 * passes when it did not actually compare. A finding is data, not an error;
 * any other exception means the checker itself broke.
 */
export const COMPAT_ERROR_CODES = {
  BAD_REF: 'a --against value that is not a safe git ref',
  BAD_OPTION: 'an unknown or malformed command-line option',
  NOT_A_REPO: 'the working directory is not inside a git checkout',
  NOT_A_TERMWIRE_PROJECT: "the checkout's package.json does not declare the termwire package or its command",
  CACHE_UNWRITABLE: 'the directory for built baselines cannot be created or written',
  OUTPUT_UNWRITABLE: 'the --output file cannot be written',
  NO_BASELINE: 'no release to compare against',
  SAME_TREE: 'the baseline tree equals the working tree: the comparison would prove nothing',
  GIT_FAILED: 'a git command failed',
  EXTRACT_FAILED: 'git archive of the baseline could not be extracted',
  INSTALL_FAILED: "installing a build's dependencies failed",
  BUILD_FAILED: "a build's own build script failed",
  MANIFEST_UNAVAILABLE: 'a build could not report its wire manifest',
  PEER_UNAVAILABLE: "a build's peer process would not start or speaks a peer protocol this harness cannot drive",
  JOURNEY_UNAVAILABLE: 'the journey runner is not available in this build',
  BAD_ACKNOWLEDGEMENTS: 'compat/acknowledged-breaks.json is malformed',
  INTERRUPTED: 'the run was interrupted by a signal',
  BAD_SHARDS: 'the reports given to compat merge are not all the shards of one run',
} as const;

export type CompatErrorCode = keyof typeof COMPAT_ERROR_CODES;

/** The code is for machines (JSON's error.code, tests); the message is in words for people, without it. */
export class CompatError extends Error {
  override readonly name = 'CompatError';
  readonly exitCode = 2;
  constructor(readonly code: CompatErrorCode, message: string) {
    super(message);
  }
}

export function isCompatError(e: unknown): e is CompatError {
  return e instanceof CompatError;
}
