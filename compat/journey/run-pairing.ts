import { availableParallelism } from 'node:os';
import type { BuildInfo } from '../build-info.js';
import { CompatError } from '../errors.js';
import type { LivenessExchange, PairingRecording, ProbeEnd, Side, StepName, StepResult, UngatedSendReport, UnplannedEnd } from '../recording.js';
import { type ClientObservation, type HostObservation, HostInputLog, type HostStateAnswer, type Observation } from './observed-state.js';
import { PROTOCOL_1_OPS } from './drivable.js';
import type { Lanes } from './lanes.js';
import type { Peer } from './peer-process.js';
import { startPeer } from './peer-pool.js';
import { bookCpu } from '../cpu-booked.js';
import { PTY_JOURNEY } from './pty-steps.js';
import { RESTART_JOURNEY } from './restart-steps.js';
import { recordFrames } from './record-frames.js';
import { renderSnapshots } from './render-snapshots.js';
import type { PeerTransport } from '../peer/peer-ops.js';
import { type ProxiedFrame, RecordingProxy } from './recording-proxy.js';
import { StreamRecordingProxy } from './stream-proxy.js';
import { STREAM_JOURNEY } from './stream-steps.js';
import { JOURNEY } from './script-journey.js';
import { JOURNEY_DETACHED_LIFETIME_MS, LIFETIME_JOURNEY } from './lifetime-steps.js';
import { NO_STALL_WINDOWS, type StallWindows, StepStalled, waitForBarrier } from './stall-window.js';
import { type DrivableOps, first, JOURNEY_TERMINAL, type JourneyStep, SECOND_CLIENT_VIEWPORT, type StepContext, StepNotJudged, terminalGot } from './steps.js';
import { sequencedInputAnswered } from './wire-view.js';
import { type JourneyFlow, RELEASED_JOURNEY_FLOW } from './journey-flow.js';

/** A journey: which terminal the host serves, over which transport, and the steps (each says what it types). */
export interface JourneyPlan {
  /** What its peers' CPU is booked under in the run's cost line: the pass, or explore. */
  readonly costsFor: string;
  readonly hostBackend: 'script' | 'pty';
  /** WebSocket unless said: `stream` is the length-framed byte stream over TCP. */
  readonly transport?: PeerTransport;
  /** A capability the link withholds (explore's `without:` move): every client advertises it, no host hears of it (WebSocket journeys). */
  readonly withheldCapability?: string;
  /** The host's lifetime for detached terminals, for hosts whose peer takes `detachedIdleMs` (PEER_HOST_ARGS); the host's default otherwise. */
  readonly detachedIdleMs?: number;
  readonly steps: readonly JourneyStep[];
}

export const SCRIPT_PLAN: JourneyPlan = { costsFor: 'script', hostBackend: 'script', steps: JOURNEY };
export const PTY_PLAN: JourneyPlan = { costsFor: 'pty', hostBackend: 'pty', steps: PTY_JOURNEY };
export const RESTART_PLAN: JourneyPlan = { costsFor: 'restart', hostBackend: 'script', steps: RESTART_JOURNEY };
export const STREAM_PLAN: JourneyPlan = { costsFor: 'stream', hostBackend: 'script', transport: 'stream', steps: STREAM_JOURNEY };
export const LIFETIME_PLAN: JourneyPlan = { costsFor: 'lifetime', hostBackend: 'script', detachedIdleMs: JOURNEY_DETACHED_LIFETIME_MS, steps: LIFETIME_JOURNEY };

/** How a host peer of this plan starts in this run. */
const hostArgsOf = (plan: JourneyPlan, decision: RunDecision) => [
  '--backend',
  plan.hostBackend,
  ...(plan.detachedIdleMs ? ['--detached-idle-ms', String(plan.detachedIdleMs)] : []),
  ...(decision.flow.hostLimits ? ['--flow-limits', JSON.stringify(decision.flow.hostLimits)] : []),
];

/** The proxy between the peers, recording every frame: WebSocket messages, or frames cut from the byte stream by the wire spec's framing. */
type JourneyProxy = RecordingProxy | StreamRecordingProxy;
const proxyFor = (plan: JourneyPlan): JourneyProxy => (plan.transport === 'stream' ? new StreamRecordingProxy() : new RecordingProxy(plan.withheldCapability));

/** Whether a build knows instance ids (its host names its terminal's instance in `subscribed`, its client reads it): only then is a new terminal told from the one a client typed for. */
const namesInstances = (b: PairingBuild) => (b.build.manifest.surface ?? []).some((e) => e.key === 'field:Metadata[type=subscribed].instanceId');

/** Where a host peer takes the plan's transport. */
function hostAddress(plan: JourneyPlan, hello: Peer['hello']): { url: string; token: string } {
  const url = plan.transport === 'stream' ? hello.streamUrl : hello.url;
  if (!url) throw new Error(`the host peer ${hello.version} announced no ${plan.transport ?? 'ws'} address`);
  return { url, token: hello.token ?? '' };
}

/** What the gate run decided for every pairing: the ops both builds' peers answer, and the steps skipped for lack of them. */
export interface RunDecision {
  readonly ops: DrivableOps;
  readonly skipped: ReadonlyMap<StepName, string>;
  /** The output sizes of its steps, and the host limits set for them (journey-flow.ts). */
  readonly flow: JourneyFlow;
}

/** Protocol 1's ops and nothing skipped: for callers driving two builds of one peer protocol. */
export const PROTOCOL_1_RUN: RunDecision = {
  ops: { client: new Set(PROTOCOL_1_OPS.client), host: new Set(PROTOCOL_1_OPS.host) },
  skipped: new Map(),
  flow: RELEASED_JOURNEY_FLOW,
};

export interface JourneyOptions {
  /** Longest a step may wait for its barrier before it is reported stalled. Default 15000. A skew step stalls sooner when nothing moves for its stall window (stall-window.ts). */
  readonly stepDeadlineMs: number;
  /**
   * How often the barrier polls the peers' state. Default 50: each poll has every peer of the pairing draw its screen
   * and the gate compare it all, so at 20 ms polling was about a fifth of a cached run's CPU; a step waits on
   * its client's timers (seconds), never on the poll.
   */
  readonly pollMs: number;
  /** Client liveness: ping interval and pong deadline, short so a silent drop is noticed quickly. Default 200 / 2000: a client parsing a multi-MiB burst on a busy 2-core machine can hold its event loop past 1 s, and a timer that fires before the pong is read fakes a drop (seen in old × old under load). */
  readonly clientPingIntervalMs: number;
  readonly clientPongDeadlineMs: number;
  /** After the last step, how long outcomes may take to settle (equal screens) before they are read. Default 3000. */
  readonly settleDeadlineMs: number;
  /** Pairings the first walk runs at once; each is two mostly idle peer processes and a proxy. Default PAIRING_LANES_PER_CORE per core. */
  readonly concurrentPairings: number;
  /** Lanes this walk shares with others of the run (lanes.ts): its pairings queue with theirs, and concurrentPairings is not read. */
  readonly sharedLanes?: Lanes;
  /** Whether a build whose peers serve sessions runs them in long-lived processes (peer-pool.ts). Default true; false starts a process per peer, as for builds without sessions. */
  readonly longLivedPeers: boolean;
}

/**
 * A script pairing waits on timers for about three quarters of its wall time
 * (the client's stall resend and its pong deadline), so its peers keep about
 * a quarter of a core busy: two lanes per core overlap those waits, where one
 * lane per core left the cores half idle through the journeys.
 */
export const PAIRING_LANES_PER_CORE = 2;

export const DEFAULT_JOURNEY_OPTIONS: JourneyOptions = Object.freeze({
  stepDeadlineMs: 15_000,
  pollMs: 50,
  clientPingIntervalMs: 200,
  clientPongDeadlineMs: 2_000,
  settleDeadlineMs: 3_000,
  concurrentPairings: PAIRING_LANES_PER_CORE * availableParallelism(),
  longLivedPeers: true,
});

export interface PairingBuild {
  readonly side: Side;
  readonly build: BuildInfo;
  /** This build's decoder in a process of its own (peer role 'codec'). */
  readonly codec: Peer;
  /** What its host holds for a stream that returns no credit (hostHoldsBytes). */
  readonly holdsBytes: number;
}

/** Whether the build's peer of this role serves one session after another in one process (peer-pool.ts). */
const sessionsOf = (b: PairingBuild, role: 'host' | 'client') => b.codec.hello.sessionRoles?.includes(role) ?? false;

/** Whether the build's host peer takes this argument (PEER_HOST_ARGS, listed in its codec peer's hello). */
export const takesHostArg = (b: PairingBuild, name: string) => b.codec.hello.hostArgs?.includes(name) ?? false;
/** Whether the build's client peer takes this argument (PEER_CLIENT_ARGS, listed in its codec peer's hello). */
export const takesClientArg = (b: PairingBuild, name: string) => b.codec.hello.clientArgs?.includes(name) ?? false;

/** Waits, on the client's own state, until it has seen its link go down. */
async function clientNoticed(client: Peer, options: JourneyOptions): Promise<void> {
  const deadline = Date.now() + options.stepDeadlineMs;
  while ((await client.call<ClientObservation>('state')).connected) {
    if (Date.now() > deadline) throw new StepStalled('the client to notice its host stopped');
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}

/** Runs the journey once with `client` against `host` through a recording proxy. */
export async function runPairing(
  client: PairingBuild,
  host: PairingBuild,
  options: JourneyOptions = DEFAULT_JOURNEY_OPTIONS,
  plan: JourneyPlan = SCRIPT_PLAN,
  decision: RunDecision = PROTOCOL_1_RUN,
  stallWindows: StallWindows = NO_STALL_WINDOWS,
  restart: { readonly hostAs?: PairingBuild } = {},
): Promise<PairingRecording> {
  const label = `${client.side} client × ${host.side} host${restart.hostAs ? ` restarting as ${restart.hostAs.side} host` : ''}${plan.hostBackend === 'pty' ? ' (pty)' : ''}`;
  const peerErrors: string[] = [];
  const steps: StepResult[] = [];
  let hostPeer: Peer | undefined;
  let clientPeer: Peer | undefined;
  let secondPeer: Promise<Peer> | undefined;
  let startedSecond: Promise<Peer> | undefined;
  let typed = '';
  let atMostOnce = '';
  const segments: Array<{ text: string; atMostOnce?: true }> = [];
  /** Typed while the client knew it was down, not yet let through to the terminal. */
  const owedAfterReconnect: string[] = [];
  let proxy: JourneyProxy | undefined;
  let finalObservation: Observation | undefined;
  let captured: ProxiedFrame[] = [];
  let liveness: LivenessExchange[] = [];
  let unplannedEnds: UnplannedEnd[] = [];
  let probeEnds: ProbeEnd[] = [];
  let advertised = { client: client.build.manifest.advertised.client, host: host.build.manifest.advertised.host };
  let peerCpuMs = 0;
  const servesSessions = (b: PairingBuild, role: 'host' | 'client') => options.longLivedPeers && sessionsOf(b, role);
  try {
    const clientArgsFor = (url: string, token: string) => ['--url', url, '--token', token, '--ping-interval-ms', String(options.clientPingIntervalMs), '--pong-deadline-ms', String(options.clientPongDeadlineMs), ...(decision.flow.clientAckBatchBytes ? ['--ack-batch-bytes', String(decision.flow.clientAckBatchBytes)] : [])];
    proxy = proxyFor(plan);
    const proxyUrl = await proxy.listen();
    // A byte stream has no path to name the client by: the stream pass has one client.
    const primaryUrl = plan.transport === 'stream' ? proxyUrl : `${proxyUrl}/primary`;
    // Both peers start at once; the proxy holds the client's connection until the host is listening.
    const starting = [
      startPeer({ buildDir: host.build.dir, role: 'host', sessions: servesSessions(host, 'host'), args: hostArgsOf(plan, decision), label: `${host.side} host ${host.build.version}` }),
      startPeer({
        buildDir: client.build.dir,
        role: 'client',
        sessions: servesSessions(client, 'client'),
        label: `${client.side} client ${client.build.version}`,
        args: clientArgsFor(primaryUrl, proxy.token),
      }),
    ] as const;
    const [hostStarted, clientStarted] = await Promise.allSettled(starting);
    if (hostStarted.status === 'fulfilled') hostPeer = hostStarted.value;
    if (clientStarted.status === 'fulfilled') clientPeer = clientStarted.value;
    if (hostStarted.status === 'rejected') throw hostStarted.reason;
    if (clientStarted.status === 'rejected') throw clientStarted.reason;
    hostPeer = hostStarted.value;
    clientPeer = clientStarted.value;
    proxy.connectTo(hostAddress(plan, hostPeer.hello));
    // What the running builds say they advertise wins over their manifests.
    advertised = { client: clientPeer.hello.advertised, host: hostPeer.hello.advertised };
    const peers = { client: clientPeer, host: hostPeer };
    const hostLabel = (b: PairingBuild) => `${b.side} host ${b.build.version}`;
    /** The host stops as a deployment stops it and the other build starts in its place; the client stays, and reconnects through the proxy. */
    const restartHost = async (typedWhileDown?: string) => {
      const next = restart.hostAs;
      if (!next) throw new Error('this pairing does not restart its host');
      proxy!.replaceUpstream();
      await peers.host.stop();
      peerCpuMs += peers.host.cpuMs;
      // Typed into a host the client knows is gone: it must have seen its link close first, or the keys go into the
      // closing link instead of being held. A stopping process used to give it that time; a closing session does not.
      await clientNoticed(peers.client, options);
      if (typedWhileDown) await peers.client.call('write', { data: typedWhileDown });
      const started = await startPeer({ buildDir: next.build.dir, role: 'host', sessions: servesSessions(next, 'host'), args: hostArgsOf(plan, decision), label: hostLabel(next) });
      hostPeer = peers.host = started;
      advertised = { ...advertised, host: started.hello.advertised };
      proxy!.connectTo(hostAddress(plan, started.hello));
      // The terminal is a new one: what it must have received is what is typed from now on. Keys typed while no host ran
      // never reach it where the host names its terminal's instance and the client reads it; a build that predates
      // instance ids (0.1) on either side cannot tell the new terminal from the old, and it may get them at most once.
      const mayGetThem = typedWhileDown !== undefined && !(namesInstances(next) && namesInstances(client));
      typed = atMostOnce = mayGetThem ? typedWhileDown : '';
      segments.length = 0;
      if (mayGetThem) segments.push({ text: typedWhileDown, atMostOnce: true });
      owedAfterReconnect.length = 0;
    };
    const clientArgs = (url: string) => clientArgsFor(url, proxy!.token);
    // The second client connects to its own path, so the proxy can say which client each frame belongs to.
    // Its process starts now, beside the others (a process start is the slow part); it subscribes when a step first asks.
    const secondProcess = plan.steps.some((s) => s.name === 'secondClient')
      ? startPeer({ buildDir: client.build.dir, role: 'client', sessions: servesSessions(client, 'client'), label: `${client.side} second client ${client.build.version}`, args: clientArgs(`${proxyUrl}/second`) })
      : undefined;
    secondProcess?.catch(() => undefined); // a failure surfaces when a step asks for it
    startedSecond = secondProcess;
    const second = () =>
      (secondPeer ??= (secondProcess ?? Promise.reject(new Error('this plan has no second client'))).then(async (peer) => {
        await peer.call('subscribe', { terminal: JOURNEY_TERMINAL, ...SECOND_CLIENT_VIEWPORT });
        return peer;
      }));
    const started = async () => (secondPeer ? await secondPeer : undefined);
    /** Each host peer's input log, as its answers add to it: a restarted host's log is its own. */
    const hostLogs = new WeakMap<Peer, HostInputLog>();
    const observeHost = async (host: Peer): Promise<HostObservation> => {
      const log = hostLogs.get(host) ?? new HostInputLog();
      hostLogs.set(host, log);
      return log.observed(await host.call<HostStateAnswer>('state', log.args));
    };
    const observe = async (): Promise<Observation> => {
      const secondNow = await started();
      const [clientState, hostState, secondState] = await Promise.all([
        peers.client.call<ClientObservation>('state'),
        observeHost(peers.host),
        secondNow?.call<ClientObservation>('state'),
      ]);
      const wire = proxy!.frames;
      return { client: clientState, host: hostState, ...(secondState ? { second: secondState } : {}), wire, wireCount: wire.length, probeEnds: [...proxy!.probeEnds], probeFloodAnswered: proxy!.probeFloodAnswered };
    };
    const until = (missing: (o: Observation) => string | undefined, deadlineMs = options.stepDeadlineMs, stallWindowMs?: number) =>
      waitForBarrier(observe, missing, { deadlineMs, stallWindowMs, pollMs: options.pollMs });
    let stalled: StepName | undefined;
    for (const [index, step] of plan.steps.entries()) {
      const stallWindowMs = stallWindows[index];
      const skipReason = stalled ? `step ${stalled} stalled` : decision.skipped.get(step.name);
      if (skipReason) {
        steps.push({ name: step.name, status: 'skipped', reason: skipReason, durationMs: 0 });
        continue;
      }
      proxy.step = step.name;
      const startedAt = Date.now();
      try {
        const before = await observe();
        const notApplicable = step.notApplicable?.(before);
        if (notApplicable) {
          steps.push({ name: step.name, status: 'skipped', reason: `not applicable: ${notApplicable}`, durationMs: 0 });
          continue;
        }
        // A reconnect begun in a holding step waits at the proxy until a later step has taken its 'before'.
        proxy.holdNewConnections = step.holdsReconnect === true;
        const p = proxy;
        const ctx: StepContext = {
          client: clientPeer,
          host: peers.host,
          restartHost,
          second,
          before,
          ops: decision.ops,
          flow: decision.flow,
          drop: (mode) => p.drop(mode),
          dropSequencedInput: (who, passBefore) => p.dropSequencedInput(who, passBefore),
          duplicateSequencedInput: (who, passBefore) => p.duplicateSequencedInput(who, passBefore),
          loseInputAck: (who) => p.loseInputAck(who),
          withholdAcks: (who) => p.withholdAcks(who),
          releaseAcks: () => p.releaseAcks(),
          holdToClient: (who) => p.holdToClient(who),
          heldToClient: () => p.heldToClient(),
          releaseToClient: () => p.releaseToClient(),
          inject: (who, bytes) => p.inject(who, bytes),
          probe: () => p.probe(),
          probeWrongToken: () => p.probeWrongToken(),
          until: async (m) => void (await until(m, options.stepDeadlineMs, stallWindowMs)),
          observe,
        };
        if (step.typed) {
          typed += step.typed;
          if (step.typedAtMostOnce) atMostOnce += step.typed;
          segments.push({ text: step.typed, ...(step.typedAtMostOnce ? { atMostOnce: true as const } : {}) });
        }
        await step.act?.(ctx);
        if (step.heldUntilReconnect && step.typed) owedAfterReconnect.push(step.typed);
        // Held input reaches the terminal in the first step that lets the reconnect through, in every run: its frames stay in that step.
        const owed = step.holdsReconnect ? [] : owedAfterReconnect.splice(0);
        await until((o) => first(step.done(o, before, decision.flow), sequencedInputAnswered(o, before), ...owed.map((text) => terminalGot(o, text))), options.stepDeadlineMs, stallWindowMs);
        steps.push({ name: step.name, status: 'ok', durationMs: Date.now() - startedAt });
      } catch (error) {
        if (error instanceof StepNotJudged) {
          steps.push({ name: step.name, status: 'skipped', reason: `not judged: ${error.message}`, durationMs: Date.now() - startedAt });
          continue;
        }
        stalled = step.name;
        const missing = error instanceof StepStalled ? error.missing : `control error: ${(error as Error).message}`;
        steps.push({ name: step.name, status: 'stalled', missing, durationMs: Date.now() - startedAt });
      }
    }
    // Outcomes are read once everything has settled: a real shell's prompt may land in a later read,
    // and a late duplicate write must be seen. Equal screens end the wait early; a deadline ends it otherwise.
    finalObservation = await until((o) => (o.client.screen === o.host.screen ? undefined : 'equal screens'), options.settleDeadlineMs).catch(() => observe().catch(() => undefined));
  } catch (error) {
    // The peers never got as far as the journey: nothing was compared, so this is exit 2, never a finding or a pass.
    throw new CompatError('PEER_UNAVAILABLE', `${label}: ${(error as Error).message}`);
  } finally {
    proxy?.journeyEnded();
    unplannedEnds = [...(proxy?.unplannedEnds ?? [])];
    const secondStarted = await startedSecond?.catch(() => undefined);
    for (const peer of [clientPeer, secondStarted, hostPeer]) {
      if (peer && steps.some((s) => s.status === 'stalled')) peerErrors.push(...peer.recentLog(10).map((l) => `${peer.label}: ${l}`));
    }
    await Promise.all([clientPeer?.stop(), secondStarted?.stop(), hostPeer?.stop()]);
    peerCpuMs += [clientPeer, secondStarted, hostPeer].reduce((sum, peer) => sum + (peer?.cpuMs ?? 0), 0);
    bookCpu(plan.costsFor, peerCpuMs);
    await proxy?.close();
    captured = proxy?.frames ?? [];
    liveness = proxy?.liveness ?? [];
    probeEnds = proxy?.probeEnds ?? [];
  }
  const frames = await recordFrames(captured, { client: client.codec, host: host.codec });
  return {
    client: client.side,
    host: host.side,
    clientVersion: client.build.version,
    hostVersion: restart.hostAs ? `${host.build.version} then ${restart.hostAs.build.version}` : host.build.version,
    steps,
    frames,
    ...(plan.withheldCapability ? { withheldCapability: plan.withheldCapability } : {}),
    // What an old client is sent is judged by the screen it draws too (SNAPSHOT_CONTENT_CHANGED).
    ...(client.side === 'old' && plan.hostBackend === 'script' && !plan.transport && !restart.hostAs ? { snapshotScreens: await renderSnapshots({ frames }) } : {}),
    advertised,
    negotiated: finalObservation?.client.negotiated ?? undefined,
    input: { typed, reachedTerminal: finalObservation?.host.inputLog ?? '', ...(atMostOnce ? { atMostOnce, segments } : {}) },
    screens: { client: finalObservation?.client.screen ?? '', host: finalObservation?.host.screen ?? '' },
    liveness,
    peerCpuMs,
    ...(unplannedEnds.length ? { unplannedEnds } : {}),
    ...(probeEnds.length ? { probeEnds } : {}),
    ...ungatedSendsOf(finalObservation, { client: client.side, host: (restart.hostAs ?? host).side }),
    peerErrors: [...peerErrors, ...(finalObservation ? [...finalObservation.client.errors, ...(finalObservation.second?.errors ?? []), ...finalObservation.host.errors] : [])],
  };
}

/** What each peer's send gates dropped, by the build that ran it; nothing when none dropped anything. */
function ungatedSendsOf(o: Observation | undefined, sides: { client: Side; host: Side }): { ungatedSends?: UngatedSendReport[] } {
  const reports: UngatedSendReport[] = [];
  for (const [role, side, seen] of [['host', sides.host, o?.host.ungatedSends], ['client', sides.client, o?.client.ungatedSends], ['second client', sides.client, o?.second?.ungatedSends]] as const) {
    if (seen && seen.count > 0) reports.push({ role, side, count: seen.count, first: seen.first.map((s) => ({ ...s })) });
  }
  return reports.length > 0 ? { ungatedSends: reports } : {};
}
