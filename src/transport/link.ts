/**
 * The seam between the protocol and the network: one encoded frame in, one
 * out. Host and client logic see only this, so the same code runs over
 * WebSocket, a length-framed byte stream, or an in-process test link.
 */
export interface LinkHandlers {
  /**
   * One whole frame's bytes, as received, valid during this call only: a link
   * may reuse the memory for a later frame, so a handler that keeps them copies.
   */
  frame(bytes: Uint8Array): void;
  /** The link is gone (closed by either side, or declared dead by liveness). Called once. */
  close(reason: string): void;
}

export interface FrameLink {
  /** Sends one encoded frame. A send on a closed link is dropped silently (the close handler has run or will run). */
  send(frame: Uint8Array): void;
  /**
   * Closes the link; the close handler runs once with `reason`. `code` is a
   * WebSocket close code for a close the peer should read as a refusal (1008
   * for a limit); transports without close codes ignore it.
   */
  close(reason?: string, code?: number): void;
  /** Bytes accepted by send() and not yet handed to the network. */
  readonly bufferedBytes: number;
  readonly isOpen: boolean;
  /** Date.now() when the peer was last heard from (a frame, or a pong where the transport has them); undefined where the transport does not track it. */
  readonly lastHeardAt?: number;
  /** Installs the handlers; frames received before this call are held until it. */
  attach(handlers: LinkHandlers): void;
  /** Stops reading from the peer until resumeReading (a few frames already read may still arrive); where the transport can. */
  pauseReading?(): void;
  resumeReading?(): void;
}
