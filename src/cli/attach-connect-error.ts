import { WsConnectError } from '../transport/ws-client.js';

export interface ConnectFailure {
  /** The host refused the token: retrying cannot help. */
  readonly tokenRefused: boolean;
  /** Why, in words, without the internal error code. */
  readonly reason: string;
}

/** What a failed connect attempt means to a person at the terminal. */
export function describeConnectError(error: unknown): ConnectFailure {
  if (error instanceof WsConnectError) {
    if (error.code === 'AUTH_REFUSED') return { tokenRefused: true, reason: `the host refused the token with HTTP ${error.status ?? 401}` };
    return { tokenRefused: false, reason: error.message.slice(`${error.code}: `.length) };
  }
  return { tokenRefused: false, reason: error instanceof Error ? error.message : String(error) };
}
