/** What the peers report back over the control channel; barriers read only this. */
export interface ClientObservation {
  readonly connected: boolean;
  /** How many `subscribed` events the stream has seen (one per connection). */
  readonly subscribedCount: number;
  readonly negotiated: Record<string, number> | null;
  readonly advertised: Record<string, number>;
  readonly snapshots: ReadonlyArray<{ readonly source?: string; readonly requestId?: string }>;
  readonly screen: string;
  readonly disconnects: number;
  readonly unsubscribed: boolean;
  readonly errors: readonly string[];
}

export interface HostObservation {
  readonly inputLog: string;
  readonly screen: string;
  /** Streams whose output is paused by SetOutputPaused. */
  readonly pausedStreams: number;
  readonly errors: readonly string[];
}

export interface Observation {
  readonly client: ClientObservation;
  readonly host: HostObservation;
}
