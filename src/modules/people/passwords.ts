import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { unavailable } from "../../platform/errors.js";

/**
 * Passwords are stored as `scrypt$N$r$p$salt$hash` (salt and hash base64url), never as text.
 * New hashes use OWASP's current scrypt guidance (N=2^17, r=8, p=1); a hash made with other
 * parameters still verifies with its own, and is replaced at the next successful sign-in.
 */

export const MIN_PASSWORD_LENGTH = 8;
export const DEFAULT_LOG2_COST = 17;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** Costs a stored hash may name: below is not a hash Steward made, above would let a row exhaust memory. */
const MIN_LOG2_COST = 10;
const MAX_LOG2_COST = 20;

/**
 * One derivation at N=2^17 holds 128 MiB. Sign-in needs no key, so the number running at once is
 * capped, and so is the queue behind them: past it a sign-in is refused (503) instead of letting
 * a flood of requests take the machine's memory. A process has one hasher.
 */
const MAX_RUNNING = 2;
const MAX_WAITING = 64;

class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= MAX_RUNNING) {
      if (this.waiting.length >= MAX_WAITING) {
        throw unavailable("Too many sign-ins are being checked right now. Try again in a few seconds.", "5");
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter, so `running` never drops and rises again.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

function derive(password: string, salt: Buffer, options: ScryptOptions & { N: number; r: number; p: number }): Promise<Buffer> {
  const maxmem = 128 * options.N * options.r * options.p + 16 * 1024 * 1024;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, { ...options, maxmem }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export class PasswordHasher {
  private readonly n: number;
  private readonly slots = new Slots();

  constructor(log2Cost = DEFAULT_LOG2_COST) {
    this.n = 2 ** log2Cost;
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.slots.run(() => derive(password, salt, { N: this.n, r: R, p: P }));
    return ["scrypt", this.n, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
  }

  /** Whether `password` matches; without a stored hash it spends the same time, so unknown addresses cannot be told apart by timing. */
  async verify(password: string, stored: string | null): Promise<boolean> {
    const parsed = stored === null ? undefined : parse(stored);
    if (!parsed) {
      await this.slots.run(() => derive(password, Buffer.alloc(16), { N: this.n, r: R, p: P }));
      return false;
    }
    const actual = await this.slots.run(() => derive(password, parsed.salt, { N: parsed.n, r: parsed.r, p: parsed.p }));
    return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
  }

  /** Whether a stored hash was made with weaker parameters than today's. */
  outdated(stored: string): boolean {
    const parsed = parse(stored);
    return !parsed || parsed.n < this.n;
  }
}

function parse(stored: string): { n: number; r: number; p: number; salt: Buffer; hash: Buffer } | undefined {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  const values = { n: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== "scrypt" || !salt || !hash) return undefined;
  const log2 = Math.log2(values.n);
  if (!Number.isInteger(log2) || log2 < MIN_LOG2_COST || log2 > MAX_LOG2_COST || values.r !== R || values.p !== P) return undefined;
  return { ...values, salt: Buffer.from(salt, "base64url"), hash: Buffer.from(hash, "base64url") };
}
