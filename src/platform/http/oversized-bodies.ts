import type { IncomingMessage, ServerResponse } from "node:http";
import type { App } from "./types.js";

/**
 * A body over the limit must show its 413 to the client, however the client sends it
 * (docs/security.md, "Request bodies"):
 *
 * - `Expect: 100-continue` with a declared Content-Length over the limit: no `100 Continue`; the
 *   request goes straight to the routes, whose body parser answers 413 from the header alone,
 *   and the connection closes after the answer. The client never sends the body.
 * - A declared length over the limit without `Expect`, or a chunked body that grows past the
 *   limit: the 413 goes out at once, and what the client keeps sending is read and thrown away
 *   up to the limit again (at least DRAIN_MIN_BYTES) or DRAIN_MS, then the connection is closed.
 *   Closing with bytes unread would make the kernel reset the connection, and a reset can
 *   destroy the 413 before the client reads it.
 */
export const DRAIN_MIN_BYTES = 16 * 1024 * 1024;
export const DRAIN_MS = 10_000;

export interface BodyLimits {
  /** BODY_LIMIT_BYTES */
  bodyBytes: number;
  /** AUTH_BODY_LIMIT_BYTES, for the routes under /auth/ */
  authBodyBytes: number;
}

/** The limit of the routes a URL goes to. */
export function bodyLimitFor(url: string, limits: BodyLimits): number {
  return url.startsWith("/auth/") ? limits.authBodyBytes : limits.bodyBytes;
}

/** Whether the request declares a Content-Length over the limit of its URL. */
export function declaresTooMuch(headers: IncomingMessage["headers"], url: string, limits: BodyLimits): boolean {
  const declared = headers["content-length"];
  if (declared === undefined || !/^\d+$/.test(declared)) return false;
  return Number(declared) > bodyLimitFor(url, limits);
}

const refusedContinue = new WeakSet<IncomingMessage>();

export function handleOversizedBodies(app: App, limits: BodyLimits): void {
  // With a listener here, Node leaves `100 Continue` to us.
  app.server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    if (declaresTooMuch(req.headers, req.url ?? "/", limits)) refusedContinue.add(req);
    else res.writeContinue();
    app.server.emit("request", req, res);
  });

  app.addHook("onSend", async (request, reply, payload) => {
    // The client is waiting for a 100 that will not come, and sends no body: end the exchange.
    if (refusedContinue.has(request.raw)) reply.header("connection", "close");
    // Fastify closes the connection after any body it could not parse, with the rest of the body
    // unread: the reset that follows can destroy the 413. The connection stays while the rest is
    // drained (below), and closes after it.
    else if (reply.statusCode === 413 && !request.raw.complete) reply.removeHeader("connection");
    return payload;
  });

  app.addHook("onResponse", async (request, reply) => {
    if (reply.statusCode === 413 && !refusedContinue.has(request.raw)) drainBounded(request.raw, Math.max(DRAIN_MIN_BYTES, bodyLimitFor(request.url, limits)), DRAIN_MS);
  });
}

/**
 * Lets the rest of an unread body be read and discarded (Node reads a body nobody consumed on
 * its own, to keep the connection), but only up to `maxBytes` more or `maxMs`: then closes.
 */
export function drainBounded(req: IncomingMessage, maxBytes: number, maxMs: number): void {
  if (req.complete) return;
  const socket = req.socket;
  const start = socket.bytesRead;
  if (!req.readableFlowing) req.resume();
  const stop = () => {
    clearInterval(watch);
    clearTimeout(deadline);
  };
  const watch = setInterval(() => {
    if (req.complete || socket.destroyed) return stop();
    if (socket.bytesRead - start > maxBytes) {
      stop();
      socket.destroy();
    }
  }, 20);
  const deadline = setTimeout(() => {
    stop();
    if (!req.complete) socket.destroy();
  }, maxMs);
  watch.unref();
  deadline.unref();
  req.once("end", () => {
    stop();
    // The answer is out and the body read to its end: close without a byte left unread.
    socket.end();
  });
  socket.once("close", stop);
}
