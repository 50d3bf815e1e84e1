import { describe, expect, it } from "vitest";
import { perConnection } from "./per-connection.js";

describe("a wrapper per connection", () => {
  it("is made once per connection and handed out again for it, at once", async () => {
    let made = 0;
    const wrapperOf = perConnection((client: { id: number }) => ({ client, n: ++made }));
    const a = { id: 1 };
    const b = { id: 2 };
    const first = await wrapperOf(a);
    expect(wrapperOf(a)).toBe(first);
    expect(await wrapperOf(b)).not.toBe(first);
    expect(made).toBe(2);
  });

  it("keeps nothing for a connection it refused, and tries again at its next checkout", async () => {
    let refuse = true;
    const wrapperOf = perConnection(async (client: { id: number }) => {
      if (refuse) throw new Error("refused");
      return { client };
    });
    const c = { id: 1 };
    await expect(wrapperOf(c)).rejects.toThrow("refused");
    refuse = false;
    const wrapper = await wrapperOf(c);
    expect(wrapperOf(c)).toBe(wrapper);
  });
});
