import { describe, expect, it } from "vitest";
import { clientOf } from "./connections.js";

describe("what counts as one client", () => {
  it("is an IPv4 address, also written as IPv6", () => {
    expect(clientOf("10.1.2.3")).toBe("10.1.2.3");
    expect(clientOf("::ffff:10.1.2.3")).toBe("10.1.2.3");
  });

  it("is the /64 of an IPv6 address, however it is written", () => {
    expect(clientOf("2001:db8:0:1:aaaa::1")).toBe("2001:db8:0:1::/64");
    expect(clientOf("2001:0db8:0000:0001:ffff:ffff:ffff:ffff")).toBe("2001:db8:0:1::/64");
    expect(clientOf("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientOf("::1")).toBe("0:0:0:0::/64");
    expect(clientOf("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });
});
