/**
 * Fair shares of the worker threads, given/when/then without threads: an owner's flood waits
 * behind itself, another owner is served next, and each owner's share is bounded.
 */
import { describe, expect, it } from "vitest";
import { FairQueue, ShareExhausted, WaitAborted } from "./shares.js";

describe("fair shares of the worker threads", () => {
  it("serves a newcomer before the rest of a flood, and refuses the flood past its share", async () => {
    const queue = new FairQueue(1, 4, 64);
    const order: string[] = [];
    const take = (owner: string, label: string) =>
      queue.acquire(owner).then((release) => {
        order.push(label);
        return release;
      });
    const first = await take("a", "a1");
    const flood = [take("a", "a2"), take("a", "a3"), take("a", "a4")];
    await expect(queue.acquire("a")).rejects.toBeInstanceOf(ShareExhausted);
    const other = take("b", "b1");
    first();
    (await other)();
    for (const waiting of flood) (await waiting)();
    expect(order).toEqual(["a1", "b1", "a2", "a3", "a4"]);
    expect(queue.heldBy("a")).toBe(0);
  });

  it("gives an owner holding nothing its place even when everyone together holds the total", async () => {
    const queue = new FairQueue(1, 10, 2);
    const first = await queue.acquire("a");
    const second = queue.acquire("a");
    await expect(queue.acquire("a")).rejects.toBeInstanceOf(ShareExhausted);
    const other = queue.acquire("b");
    expect(queue.heldBy("b")).toBe(1);
    await expect(queue.acquire("b")).rejects.toBeInstanceOf(ShareExhausted);
    first();
    (await other)();
    (await second)();
  });

  it("gives back the place of work whose wait is aborted", async () => {
    const queue = new FairQueue(1, 2, 10);
    const running = await queue.acquire("a");
    const controller = new AbortController();
    const waiting = queue.acquire("a", controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(WaitAborted);
    expect(queue.heldBy("a")).toBe(1);
    running();
    (await queue.acquire("a"))();
  });
});
