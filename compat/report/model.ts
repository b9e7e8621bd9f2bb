import type { AcknowledgedFinding, AcknowledgementsFile, ExpiredAcknowledgement, ExpiringAcknowledgement, StaleAcknowledgement } from './acknowledged.js';
import type { BaselineCoverage } from './coverage.js';
import type { ReportedFinding } from './root-causes.js';
import type { Finding } from '../rules/finding.js';
import type { ShardUnits } from '../shard.js';

/** One shard of a split run (`--shard i/n`) and what it walked. */
export interface ShardReport {
  readonly index: number;
  readonly count: number;
  readonly units: readonly ShardUnits[];
}

export type GateStatus = 'compatible' | 'incompatible' | 'cannotCompare' | 'internalError';

export const EXIT_CODES = { compatible: 0, incompatible: 1, cannotCompare: 2, internalError: 2 } as const satisfies Record<GateStatus, number>;

export interface GateReport {
  readonly status: GateStatus;
  readonly exitCode: 0 | 1 | 2;
  readonly current?: { readonly version: string; readonly commit: string };
  readonly baselines: ReadonlyArray<{ readonly label: string; readonly commit: string; readonly version: string | undefined }>;
  readonly staticOnly: boolean;
  /** `--passes`: the journey passes walked, when not all of them. */
  readonly passes?: readonly string[];
  /** Rule ids that ran, so JUnit can list passing cases too. */
  readonly rulesRun: readonly string[];
  /**
   * Findings that fail the gate, deduplicated, root causes first: static, then
   * dynamic in journey order, each followed by the findings it explains
   * (`causedBy`). Not acknowledged.
   */
  readonly findings: readonly ReportedFinding[];
  /**
   * Directions an acknowledged break stops: their journeys stalled at `step`,
   * so nothing past it was walked there, and the direction is judged only up to
   * the break until the next release. `coverage` is that direction's line.
   */
  readonly blindSpots?: ReadonlyArray<{ readonly direction: string; readonly baseline?: string; readonly step: string; readonly entry: string; readonly unwalkedPercent: number; readonly coverage: string }>;
  /** Findings an acknowledgement in force accepts, with its reason, owner and expiry. */
  readonly acknowledged: readonly AcknowledgedFinding[];
  /** Acknowledgements that matched nothing, each with the field that failed to match: remove them from compat/acknowledged-breaks.json. */
  readonly staleAcknowledgements: readonly StaleAcknowledgement[];
  /** Expired acknowledgements that still match findings: those fail again, and so does the gate (exit 1). */
  readonly expiredAcknowledgements?: readonly ExpiredAcknowledgement[];
  /** Acknowledgements in use that expire within two weeks: renew them while the base branch's copy still holds them. */
  readonly expiringAcknowledgements?: readonly ExpiringAcknowledgement[];
  /** The acknowledgements file applied, when it is not the judged tree's own (`--acknowledgements`). */
  readonly acknowledgementsFile?: AcknowledgementsFile;
  /** The day (UTC, YYYY-MM-DD) acknowledgement expiry was judged against. */
  readonly date?: string;
  /**
   * Findings that one walk of the journeys saw and a second walk of the same
   * builds (one pairing at a time, fresh references) did not: what a busy
   * machine can cause. Reported, never failing (docs/compatibility.md).
   */
  readonly notReproduced?: readonly Finding[];
  /** What a rule could not check and why (an older baseline whose manifest predates the surface list). Never a failure. */
  readonly notes?: readonly string[];
  /** Which surface entries the journeys exercised, per direction and baseline; absent for a static-only run. */
  readonly coverage?: readonly BaselineCoverage[];
  /** The explore journeys run (`--explore N --seed S`), each schedule as it was drawn, found or not. */
  readonly explore?: { readonly seed: number; readonly count: number; readonly schedules: readonly string[] };
  /** `--shard i/n`: this report is one shard's; `termwire compat merge` joins all n into one verdict. */
  readonly shard?: ShardReport;
  /** A merged report: the shards it was joined from, each with its units (the explore seeds it walked). */
  readonly shards?: readonly ShardReport[];
  /**
   * What the run cost in CPU-seconds: the gate process's own, its peers'
   * (their shells included) by what they ran for (each pass, explore, the
   * journeys with a capability off, the decoder check, decoding recordings),
   * and the other processes it waited for (builds, git), where /proc tells.
   */
  readonly cost?: { readonly cpuSeconds: number; readonly gateCpuSeconds: number; readonly peerCpuSeconds: Readonly<Record<string, number>>; readonly otherCpuSeconds?: number };
  /** Why the gate could not compare (a CompatError), or the checker's own crash. */
  readonly error?: { readonly kind: 'cannotCompare' | 'internalError'; readonly code?: string; readonly message: string };
}
