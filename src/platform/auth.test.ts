import { describe, expect, it } from "vitest";
import { hashSecret, newSecret, SECRET_PREFIX } from "./auth.js";

describe("API key secrets", () => {
  it("are hashed as SHA-256 in hex, UTF-8 encoded: every stored key's hash depends on it", () => {
    // Computed apart: printf 'stw_k\xc3\xa9y' | sha256sum. Keys made before an upgrade must still match.
    expect(hashSecret("stw_k\u00e9y")).toBe("0581ec4856fe020017d9edf2b35ec38705413346ec9d3ced2239930f14c3437d");
  });

  it("are 32 random bytes behind the prefix, never twice the same", () => {
    const a = newSecret();
    expect(a.startsWith(SECRET_PREFIX)).toBe(true);
    expect(Buffer.from(a.slice(SECRET_PREFIX.length), "base64url")).toHaveLength(32);
    expect(newSecret()).not.toBe(a);
  });
});
