/**
 * The worker pool under more work than it takes: what it cannot queue is refused at once
 * (`WorkersBusy`, a 429 for the client), what it took is done, and a deadline stops what runs.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Workers, WorkersBusy, WorkerTimedOut } from "./pool.js";

/** YAML text that takes a worker some tens of milliseconds to parse. */
const text = Array.from({ length: 2_000 }, (_, i) => `key_${i}:\n  name: value ${i}\n  items: [1, 2, 3]`).join("\n");

describe("the worker pool", () => {
  const workers = new Workers();
  afterAll(() => workers.close());

  it("refuses at once what it cannot queue, and does all it took", async () => {
    // More than the largest pool (4 threads) and its queue (64) can hold.
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => workers.run("parseYaml", text, 60_000)));
    const refused = results.filter((r) => r.status === "rejected");
    const done = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof workers.run<"parseYaml">>>> => r.status === "fulfilled");
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WorkersBusy);
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThanOrEqual(4 + 64);
    for (const r of done) expect(r.value).toMatchObject({ value: { key_0: { name: "value 0", items: [1, 2, 3] } } });
  });

  it("stops work past its deadline, and takes work again afterwards", async () => {
    await expect(workers.run("parseYaml", text, 1)).rejects.toBeInstanceOf(WorkerTimedOut);
    await expect(workers.run("writeYaml", { a: [1, "x"] }, 60_000)).resolves.toBe("a:\n  - 1\n  - x\n");
  });
});
