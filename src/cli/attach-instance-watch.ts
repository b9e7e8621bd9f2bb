/**
 * Notices when the host's terminal behind a name is a different one from the
 * last subscribe (the host restarted, or the shell exited and a new one took
 * the name). Hosts that predate instance ids send none: then it says nothing.
 */
export class InstanceWatch {
  private last: string | undefined;

  /** Reads `instanceId` from a `subscribed` event; true when it differs from the previous subscribe's. */
  changed(subscribed: object): boolean {
    const value: unknown = (subscribed as { instanceId?: unknown }).instanceId;
    if (typeof value !== 'string' || value === '') return false;
    const previous = this.last;
    this.last = value;
    return previous !== undefined && previous !== value;
  }
}
