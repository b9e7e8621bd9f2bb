/**
 * attach asks the host for its screen when the status line must go and when
 * the remote program leaves its alternate screen. A program can do the latter
 * many times a second (a script toggling screens, a pager quitting at once),
 * and the host closes a link that asks for snapshots too often: at most one
 * request is outstanding, and asks made meanwhile become one more request
 * once it is answered. A new subscription (a reconnect) repaints anyway, so it
 * forgets a request the old link may never answer.
 */
export class SnapshotRefresher {
  private outstanding: string | undefined;
  private askedAgain = false;

  constructor(private readonly request: () => string | undefined) {}

  refresh(): void {
    if (this.outstanding !== undefined) {
      this.askedAgain = true;
      return;
    }
    this.outstanding = this.request();
  }

  /**
   * A snapshot arrived: whatever it answers, it repaints the whole screen, so
   * the next ask may go out. (Its requestId need not be ours: a host that owes
   * several snapshots on a congested link answers them with one, under the
   * latest request's id.)
   */
  snapshotArrived(): void {
    if (this.outstanding === undefined) return;
    this.outstanding = undefined;
    if (!this.askedAgain) return;
    this.askedAgain = false;
    this.refresh();
  }

  /** The stream subscribed afresh: its snapshot repaints everything asked for so far. */
  subscribed(): void {
    this.outstanding = undefined;
    this.askedAgain = false;
  }
}
