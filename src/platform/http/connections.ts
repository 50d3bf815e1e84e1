/**
 * Connections as a shared resource (docs/security.md, "Resource limits"): one client address may
 * hold `perClient` of them, so one client cannot take every connection the process allows; a
 * connection that has not carried an authenticated request is closed once it has been idle for
 * `unauthenticatedIdleMs`; and a connection whose requests keep failing authentication is closed
 * with its second 401, so a keep-alive socket cannot be used to guess keys without end.
 */
import type { Server, IncomingMessage, ServerResponse } from "node:http";
import { isIPv6, type Socket } from "node:net";

/** The 401s a connection may answer before it is closed with the last one. */
export const UNAUTHORIZED_PER_CONNECTION = 2;

/**
 * What counts as one client: an IPv4 address, or the /64 of an IPv6 address (one host usually
 * holds a whole /64). IPv4 addresses written as IPv6 (`::ffff:10.0.0.1`) count as IPv4.
 */
export function clientOf(address: string | undefined): string {
  if (address === undefined) return "";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head, tail = ""] = address.toLowerCase().split("%")[0]!.split("::");
  const front = head === "" ? [] : head!.split(":");
  const back = address.includes("::") ? (tail === "" ? [] : tail.split(":")) : [];
  const groups = [...front, ...Array(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

interface State {
  client: string;
  authenticated: boolean;
  inFlight: number;
  unauthorized: number;
  timer?: NodeJS.Timeout;
}

export class ConnectionGuard {
  private readonly perClientCount = new Map<string, number>();
  private readonly states = new WeakMap<Socket, State>();

  constructor(
    private readonly perClient: number,
    private readonly unauthenticatedIdleMs: number,
  ) {}

  /** Watches the connections of `server`. */
  attach(server: Server): void {
    server.on("connection", (socket: Socket) => this.opened(socket));
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      const state = this.states.get(request.socket);
      if (!state) return;
      state.inFlight++;
      response.once("close", () => {
        state.inFlight--;
        if (!state.authenticated) this.arm(request.socket, state);
      });
    });
  }

  /** Open connections of the client at `address`. */
  openFrom(address: string | undefined): number {
    return this.perClientCount.get(clientOf(address)) ?? 0;
  }

  /** The connection carried an authenticated request: the short idle timeout no longer applies. */
  authenticated(socket: Socket): void {
    const state = this.states.get(socket);
    if (!state || state.authenticated) return;
    state.authenticated = true;
    clearTimeout(state.timer);
  }

  /** Counts a 401 on the connection; true when it is to be closed with this answer. */
  unauthorized(socket: Socket): boolean {
    const state = this.states.get(socket);
    if (!state) return false;
    return ++state.unauthorized >= UNAUTHORIZED_PER_CONNECTION;
  }

  private opened(socket: Socket): void {
    const client = clientOf(socket.remoteAddress);
    const open = (this.perClientCount.get(client) ?? 0) + 1;
    this.perClientCount.set(client, open);
    const state: State = { client, authenticated: false, inFlight: 0, unauthorized: 0 };
    this.states.set(socket, state);
    socket.once("close", () => {
      clearTimeout(state.timer);
      const left = (this.perClientCount.get(client) ?? 1) - 1;
      if (left > 0) this.perClientCount.set(client, left);
      else this.perClientCount.delete(client);
    });
    if (open > this.perClient) {
      socket.destroy();
      return;
    }
    this.arm(socket, state);
  }

  /** Closes the connection after the idle timeout unless it authenticates or is busy by then. */
  private arm(socket: Socket, state: State): void {
    clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      if (state.authenticated) return;
      if (state.inFlight > 0) return this.arm(socket, state);
      socket.destroy();
    }, this.unauthenticatedIdleMs);
    state.timer.unref();
  }
}
