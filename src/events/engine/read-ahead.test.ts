import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { ReadAhead } from "./read-ahead.js";
import type { RenderedBatch } from "../repository.js";

describe.each(DATABASES)("reading ahead while a consumer catches up (%s)", (kind) => {
  const t = suiteServer(kind);

  const append = (n: number, prefix: string) =>
    t.server.services.events.transaction({ organizationId: t.organizationId }, async (_trx, emit) => {
      for (let i = 0; i < n; i++) emit("TeamUpdatedEvent", `${prefix}-${i}`);
    });
  const read = async (lastEventId?: string) => JSON.parse((await t.server.services.feed.read({ organizationId: t.organizationId, lastEventId, longPolling: false })).body.toString()) as any[];

  it("serves exactly what a fresh read would, also when events commit in between", async () => {
    await append(2500, "first");
    const first = await read();
    expect(first).toHaveLength(1000);
    // The read of the next batch has started; more events commit meanwhile.
    await append(10, "late");
    const second = await read(first[999].id);
    const fresh = await t.server.services.events.readAfter(t.organizationId, (await t.server.services.events.positionAfter(t.organizationId, first[999].id)));
    expect(second.map((e) => e.id)).toEqual(fresh.map((r) => r.id));
    const third = await read(second[999].id);
    expect(third).toHaveLength(510);
    expect(third.slice(-10).map((e) => e.subject)).toEqual(Array.from({ length: 10 }, (_, i) => `late-${i}`));
    // A partial batch is not read ahead: what commits next is seen.
    await append(1, "after-tail");
    expect((await read(third.at(-1).id)).map((e) => e.subject)).toEqual(["after-tail-0"]);
  });

  it("still answers 400 for an id that names no event", async () => {
    await expect(read("0190b1e4-0000-7000-8000-000000000000")).rejects.toMatchObject({ status: 400 });
  });
});

describe("ReadAhead", () => {
  const full = (from: number, count = 1000): RenderedBatch => ({ count, lastSeq: from + count, lastId: `id-${from + count}`, body: Buffer.alloc(0) });

  it("reads ahead only after full batches, holds a bounded number, and forgets a failed read", async () => {
    const reads: number[] = [];
    const ahead = new ReadAhead(async (_org, after) => {
      reads.push(after);
      if (after === 3000) throw new Error("database went away");
      return full(after);
    }, 2);
    ahead.served("org", full(0, 999));
    await new Promise((r) => setImmediate(r));
    expect(reads).toEqual([]);

    ahead.served("org", full(0));
    ahead.served("org", full(1000));
    ahead.served("org", full(2000)); // evicts the oldest
    await new Promise((r) => setTimeout(r, 10));
    expect(reads).toEqual([1000, 2000, 3000]);
    expect(await ahead.take("org", "id-1000")).toBeUndefined();
    expect((await ahead.take("org", "id-2000"))?.lastSeq).toBe(3000);
    expect(await ahead.take("org", "id-2000")).toBeUndefined(); // taken once
    expect(await ahead.take("other-org", "id-3000")).toBeUndefined();
    expect(await ahead.take("org", "id-3000")).toBeUndefined(); // the read failed: read normally
  });

  it("gives back the buffer of a batch read ahead that nobody took, and leaves a taken one to its taker", async () => {
    const released: number[] = [];
    const ahead = new ReadAhead(async (_org, after) => ({ ...full(after), release: () => released.push(after) }), 1, 50);
    ahead.served("org", full(0));
    ahead.served("org", full(1000)); // evicts the read of the batch after 1000
    await new Promise((r) => setTimeout(r, 10));
    expect(released).toEqual([1000]);
    expect(await ahead.take("org", "id-2000")).toBeDefined();
    ahead.served("org", full(5000));
    await new Promise((r) => setTimeout(r, 60));
    expect(await ahead.take("org", "id-6000")).toBeUndefined(); // expired
    await new Promise((r) => setImmediate(r));
    expect(released).toEqual([1000, 6000]);
  });
});
