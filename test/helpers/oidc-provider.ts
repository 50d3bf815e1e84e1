import { createSign, generateKeyPairSync, randomUUID, type KeyObject } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/**
 * A real OpenID provider for tests: `oidc-provider` (a certified implementation) on loopback,
 * behind a small front server on its own port that is the issuer. The front passes requests
 * through as they are, unless a test asks it to misbehave the way a hostile or broken provider
 * would: alter the ID token (and sign it again with the provider's own key), or point the keys
 * endpoint at another private address. `rotateKeys()` restarts the provider with a new key.
 */

export interface TestPerson {
  email: string;
  emailVerified?: boolean;
  groups?: string[];
}

export type Misbehaviour =
  | { kind: "none" }
  /** Changes the ID token's e-mail and keeps the old signature. */
  | { kind: "tamper" }
  /** Signs the ID token again, with the provider's key, after changing its claims. */
  | { kind: "resign"; claims: Record<string, unknown> }
  /** The discovery document names the provider's internal address for its keys. */
  | { kind: "private-jwks" }
  /** The discovery document names this as its end_session_endpoint (a value that is no address, say). */
  | { kind: "end-session"; endpoint: unknown }
  /** Every request is answered 503, as by a provider that is down behind its load balancer. */
  | { kind: "down" };

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Where the provider itself listens, behind the front (a second private address). */
  internalUrl: string;
  people: Map<string, TestPerson>;
  misbehave(m: Misbehaviour): void;
  /** Starts a new provider with a new signing key behind the same issuer. */
  rotateKeys(): Promise<void>;
  /** How many times the keys endpoint was asked for. */
  jwksRequests(): number;
  /** The ID token of the provider's last token answer, as Steward received it. */
  lastIdToken(): string | undefined;
  close(): Promise<void>;
}

function newKey(): { jwk: Record<string, unknown>; privateKey: KeyObject } {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: randomUUID(), alg: "RS256", use: "sig" };
  return { jwk, privateKey };
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");

function resign(idToken: string, claims: Record<string, unknown>, key: KeyObject): string {
  const [header, payload] = idToken.split(".");
  const body = { ...JSON.parse(Buffer.from(payload, "base64url").toString("utf8")), ...claims };
  const input = `${header}.${b64url(JSON.stringify(body))}`;
  const signature = createSign("RSA-SHA256").update(input).sign(key);
  return `${input}.${b64url(signature)}`;
}

function tamper(idToken: string): string {
  const [header, payload, signature] = idToken.split(".");
  const body = { ...JSON.parse(Buffer.from(payload, "base64url").toString("utf8")), email: "mallory@example.com" };
  return `${header}.${b64url(JSON.stringify(body))}.${signature}`;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

export async function startTestProvider(options: {
  redirectUri: string;
  clientId?: string;
  clientSecret?: string;
  postLogoutRedirectUri?: string;
  /** false: the provider has no RP-Initiated Logout, so its discovery document names no end_session_endpoint. */
  rpInitiatedLogout?: boolean;
}): Promise<TestProvider> {
  const clientId = options.clientId ?? "steward";
  const clientSecret = options.clientSecret ?? "steward-test-secret";
  const people = new Map<string, TestPerson>();
  let misbehaviour: Misbehaviour = { kind: "none" };
  let jwksCount = 0;
  let lastIdToken: string | undefined;

  const front = http.createServer();
  const frontPort = await listen(front);
  const issuer = `http://127.0.0.1:${frontPort}`;

  let key = newKey();
  let inner: http.Server;
  let innerUrl = "";

  async function startInner(): Promise<void> {
    const provider = new Provider(issuer, {
      clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [options.redirectUri], post_logout_redirect_uris: options.postLogoutRedirectUri ? [options.postLogoutRedirectUri] : [], grant_types: ["authorization_code"], response_types: ["code"] }],
      jwks: { keys: [key.jwk as never] },
      scopes: ["openid", "email", "profile", "groups"],
      claims: { openid: ["sub"], email: ["email", "email_verified"], groups: ["groups"] },
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      cookies: { keys: ["test-cookie-key"] },
      ...(options.rpInitiatedLogout === false ? { features: { rpInitiatedLogout: { enabled: false } } } : {}),
      async findAccount(_ctx, id) {
        const person = people.get(id);
        if (!person) return undefined;
        return {
          accountId: id,
          async claims() {
            return { sub: id, email: person.email, email_verified: person.emailVerified ?? true, groups: person.groups ?? [] };
          },
        };
      },
    });
    // Behind the front: the provider builds its URLs from the front's address, as behind any proxy.
    provider.proxy = true;
    inner = http.createServer(provider.callback());
    innerUrl = `http://127.0.0.1:${await listen(inner)}`;
  }
  await startInner();

  front.on("request", async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string" && name !== "host") headers.set(name, value);
      headers.set("x-forwarded-host", `127.0.0.1:${frontPort}`);
      headers.set("x-forwarded-proto", "http");
      const path = req.url ?? "/";
      if (path.startsWith("/jwks")) jwksCount++;
      if (misbehaviour.kind === "down") {
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("unavailable");
        return;
      }
      const answer = await fetch(innerUrl + path, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined, redirect: "manual" });
      let body: Buffer = Buffer.from(await answer.arrayBuffer());
      if (path.startsWith("/.well-known/openid-configuration") && misbehaviour.kind === "private-jwks") {
        const doc = JSON.parse(body.toString("utf8"));
        doc.jwks_uri = `${innerUrl}/jwks`;
        body = Buffer.from(JSON.stringify(doc));
      }
      if (path.startsWith("/.well-known/openid-configuration") && misbehaviour.kind === "end-session") {
        const doc = JSON.parse(body.toString("utf8"));
        doc.end_session_endpoint = misbehaviour.endpoint;
        body = Buffer.from(JSON.stringify(doc));
      }
      if (path.startsWith("/token") && answer.status === 200 && (misbehaviour.kind === "tamper" || misbehaviour.kind === "resign")) {
        const tokens = JSON.parse(body.toString("utf8"));
        tokens.id_token = misbehaviour.kind === "tamper" ? tamper(tokens.id_token) : resign(tokens.id_token, misbehaviour.claims, key.privateKey);
        body = Buffer.from(JSON.stringify(tokens));
      }
      if (path.startsWith("/token") && answer.status === 200) lastIdToken = (JSON.parse(body.toString("utf8")) as { id_token?: string }).id_token;
      const out: Record<string, string | string[]> = {};
      answer.headers.forEach((value, name) => {
        if (name !== "set-cookie" && name !== "content-length" && name !== "content-encoding" && name !== "transfer-encoding") out[name] = value;
      });
      const cookies = answer.headers.getSetCookie();
      if (cookies.length > 0) out["set-cookie"] = cookies;
      out["content-length"] = String(body.length);
      res.writeHead(answer.status, out);
      res.end(body);
    } catch (error) {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });

  const close = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    issuer,
    clientId,
    clientSecret,
    get internalUrl() {
      return innerUrl;
    },
    people,
    misbehave(m) {
      misbehaviour = m;
    },
    async rotateKeys() {
      const old = inner;
      key = newKey();
      await startInner();
      old.closeAllConnections();
      await close(old);
    },
    jwksRequests: () => jwksCount,
    lastIdToken: () => lastIdToken,
    async close() {
      front.closeAllConnections();
      inner.closeAllConnections();
      await Promise.all([close(front), close(inner)]);
    },
  };
}
