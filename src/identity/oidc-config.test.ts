import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../platform/config.js";
import { providerPolicy } from "./oidc.js";

describe("OIDC_* settings", () => {
  const base = { OIDC_CLIENT_ID: "steward", OIDC_CLIENT_SECRET: "s3cret" };

  it("leaves single sign-on off without OIDC_ISSUER", () => {
    expect(loadConfig({}).oidc).toBeUndefined();
  });

  it("reads the provider, with defaults for scopes and the button's name", () => {
    expect(loadConfig({ ...base, OIDC_ISSUER: "https://id.example.com/oauth2/default", OIDC_GROUPS_CLAIM: "groups" }).oidc).toEqual({
      issuer: "https://id.example.com/oauth2/default",
      clientId: "steward",
      clientSecret: "s3cret",
      groupsClaim: "groups",
      scopes: "openid email profile",
      name: "id.example.com",
    });
  });

  it("refuses plain http except on loopback, and an issuer without its client", () => {
    expect(() => loadConfig({ ...base, OIDC_ISSUER: "http://id.example.com" })).toThrow(ConfigError);
    expect(loadConfig({ ...base, OIDC_ISSUER: "http://127.0.0.1:9000" }).oidc?.issuer).toBe("http://127.0.0.1:9000");
    expect(() => loadConfig({ OIDC_ISSUER: "https://id.example.com" })).toThrow(/OIDC_CLIENT_ID and OIDC_CLIENT_SECRET/);
    expect(() => loadConfig({ ...base, OIDC_ISSUER: "not a url" })).toThrow(/absolute URL/);
  });

  it("allows the issuer's own host and port to be private, and nothing else", () => {
    expect(providerPolicy({ allowPrivateNetworks: false, allowedHosts: ["hooks.internal"] }, "http://127.0.0.1:9000")).toEqual({
      allowPrivateNetworks: false,
      allowedHosts: ["hooks.internal", "127.0.0.1:9000"],
    });
    expect(providerPolicy({ allowPrivateNetworks: false, allowedHosts: [] }, "https://ID.example.com/tenant").allowedHosts).toEqual(["id.example.com:443"]);
  });
});
