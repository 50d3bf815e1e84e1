/**
 * The feed cache's lent buffers: a buffer is lent to one reader at a time and comes back once,
 * the pool stays bounded, and over HTTP no answer ever carries bytes read for another, also while
 * a consumer that does not read its socket holds many answers unsent.
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { serverWithCachedLog } from "../../../test/helpers/events.js";
import { BatchBuffers } from "./batch-buffers.js";

describe("lent batch buffers", () => {
  it("lends a buffer to one reader at a time, and takes it back once", () => {
    const pool = new BatchBuffers(4);
    const first = pool.acquire(100_000);
    expect(first.buffer.length).toBeGreaterThanOrEqual(100_000);
    // While lent, it is nobody else's.
    const second = pool.acquire(100_000);
    expect(second.buffer).not.toBe(first.buffer);
    first.release();
    first.release();
    expect(pool.idle).toBe(1);
    // Given back, it is lent again, to one reader only, even after a second release.
    const third = pool.acquire(50_000);
    expect(third.buffer).toBe(first.buffer);
    expect(pool.acquire(50_000).buffer).not.toBe(first.buffer);
  });

  it("keeps at most so many buffers of at most so many bytes, the bigger ones when full", () => {
    const pool = new BatchBuffers(2, 1024 * 1024);
    const leases = [pool.acquire(10), pool.acquire(10), pool.acquire(300_000), pool.acquire(2 * 1024 * 1024)];
    for (const lease of leases) lease.release();
    expect(pool.idle).toBe(2);
    // The 2 MiB buffer was not kept; the 300 kB one took a small one's place.
    expect(pool.acquire(300_000).buffer).toBe(leases[2].buffer);
    expect(pool.acquire(1024 * 1024 + 1).buffer.length).toBeGreaterThan(1024 * 1024);
  });
});

/** Splits what a socket received into the bodies of its HTTP/1.1 answers, each with a content length. */
function answers(received: Buffer): { status: number; body: string }[] {
  const found: { status: number; body: string }[] = [];
  for (let at = 0; at < received.length; ) {
    const end = received.indexOf("\r\n\r\n", at);
    if (end < 0) throw new Error(`an answer without its end of headers at byte ${at}`);
    const head = received.subarray(at, end).toString();
    const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1]);
    if (!Number.isInteger(length)) throw new Error(`an answer without a content length: ${head}`);
    found.push({ status: Number(head.split(" ")[1]), body: received.subarray(end + 4, end + 4 + length).toString() });
    at = end + 4 + length;
  }
  return found;
}

describe.each(DATABASES)("answers from lent buffers over HTTP (%s)", (kind) => {
  const cached = serverWithCachedLog(kind);

  it("takes back the buffer of each answer once it has been sent", async () => {
    const cache = cached.t.server.services.events.stored.cache!;
    for (let i = 0; i < 6; i++) await cached.t.api("GET", i % 2 ? `/api/events?lastEventId=${cached.rows[999].id}` : "/api/events");
    // One buffer at a time was lent, given back and lent again (one more may wait, read ahead).
    expect(cache.idleBuffers).toBeGreaterThan(0);
    expect(cache.idleBuffers).toBeLessThanOrEqual(3);
  });

  it("never lends a buffer that an answer not yet sent still holds", async () => {
    const paths = [`/api/events`, `/api/events?lastEventId=${cached.rows[999].id}`];
    const expected = [cached.rendered(0), cached.rendered(1000)];
    // A consumer that sends forty requests at once on one connection and does not read: the
    // server's answers pile up unsent, each still holding its batch.
    const { hostname, port } = new URL(cached.t.url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.pause();
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => socket.once("end", resolve));
    const piped = Array.from({ length: 40 }, (_, i) => i % 2);
    socket.write(piped.map((which, i) => `GET ${paths[which]} HTTP/1.1\r\nHost: x\r\nx-api-key: ${cached.t.key}\r\n${i === 39 ? "Connection: close\r\n" : ""}\r\n`).join(""));
    await new Promise((resolve) => setTimeout(resolve, 200));

    // Meanwhile another consumer reads the same batches over and over, crosswise, through every
    // buffer the pool lends: one given back too early would be written over with the other batch.
    for (let i = 0; i < 60; i++) {
      const answer = await cached.t.api("GET", paths[(i + 1) % 2]);
      expect(answer.text).toBe(expected[(i + 1) % 2]);
    }

    socket.resume();
    await ended;
    const received = answers(Buffer.concat(chunks));
    expect(received.map((answer) => answer.status)).toEqual(piped.map(() => 200));
    for (const [i, answer] of received.entries()) expect(answer.body === expected[piped[i]], `answer ${i}`).toBe(true);
  });
});
