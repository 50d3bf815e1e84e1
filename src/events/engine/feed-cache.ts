import { randomUUID } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { mkdir, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyBaseLogger } from "fastify";
import { BatchBuffers, type BufferLease } from "./batch-buffers.js";

/**
 * Names one stored batch on disk. `lastId` is the id of its last event as the database holds it:
 * a file is found only through the database's own row, so a database restored from a backup, whose
 * positions may since hold other events, never finds the files of the one it replaced.
 */
export interface CachedBatchKey {
  organizationId: string;
  afterSeq: number;
  lastId: string;
  rendering: string;
  /** The body's length in bytes, as the database holds it. */
  bytes: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RENDERING = /^[A-Za-z0-9_-]{1,64}$/;
const SUFFIX = ".json";
/** Files being written are named so; one left behind by a crash is removed when the cache is trimmed. */
const PART = ".part";
/** A trim removes the oldest files until the cache holds at most this share of its limit. */
const TRIM_TO = 0.8;

/** A batch read from its file, in a buffer lent by the cache: `release` gives the buffer back. */
export interface CachedBody {
  body: Buffer;
  release(): void;
}

/**
 * The feed's stored batches as files on this machine's disk (FEED_CACHE_DIR), so that a consumer
 * catching up is answered from the page cache with one read instead of from the database: on
 * PostgreSQL with no query and no 400 kB through the database's socket, on SQLite with one read
 * instead of a hundred page reads (docs/events.md, "Catching up: the feed cache"). A batch is
 * immutable once stored, so a file never goes stale; the database stays the truth, and any file
 * missing, unreadable or not as long as the database says is read from it.
 *
 * Several processes may share the directory: files are written under a name of their own and
 * renamed into place, so a reader sees a whole file or none, and a file removed while it is being
 * read stays readable to that reader. Each process trims the directory to its limit after writing
 * an eighth of it, oldest files first.
 */
export class FeedCache {
  private readonly buffers = new BatchBuffers();
  private ready: Promise<void> | undefined;
  private writtenSinceTrim = 0;
  private trimming: Promise<void> | undefined;
  private readonly pending = new Set<Promise<void>>();
  private lastFailureLogged = -Infinity;

  constructor(
    readonly dir: string,
    private readonly limitBytes: number,
    private logger?: FastifyBaseLogger,
  ) {}

  /** Buffers given back and waiting to be lent again (for tests). */
  get idleBuffers(): number {
    return this.buffers.idle;
  }

  setLogger(logger: FastifyBaseLogger): void {
    this.logger = logger;
  }

  /**
   * The batch's bytes, or undefined when no sound file holds them. They are in a buffer lent by the
   * cache (`BatchBuffers`): whoever reads them calls `release` once nothing reads them any more.
   */
  read(key: CachedBatchKey): CachedBody | undefined {
    const name = fileName(key);
    if (!name) return undefined;
    // Read on the event loop: from the page cache a batch takes about 0.09 ms there, against
    // about 0.25 ms of CPU through libuv's threads (open, stat, read, close each handed over),
    // and CPU is what a catch-up runs short of. A file not in the page cache waits for the disk
    // on the event loop, as every read of SQLite's does.
    let fd: number;
    try {
      fd = openSync(join(this.dir, name), "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.failed({ err: error, file: name }, "could not read a cached batch; reading it from the database");
      return undefined;
    }
    let lease: BufferLease | undefined;
    try {
      const bytes = fstatSync(fd).size;
      // A file cut short or zeroed (a crash between its write and the disk) is not the batch.
      if (bytes === key.bytes) {
        lease = this.buffers.acquire(bytes);
        let read = 0;
        while (read < bytes) {
          const n = readSync(fd, lease.buffer, read, bytes - read, read);
          if (n === 0) break; // cut short since it was measured
          read += n;
        }
        const body = lease.buffer.subarray(0, read);
        if (read === bytes && body[0] === 0x5b && body[read - 1] === 0x5d) return { body, release: lease.release };
      }
      lease?.release();
      // Left in place: the batch read from the database is written over it. After a crash many
      // files may be cut short, hence one line a minute.
      this.failed({ file: name, bytes, expected: key.bytes }, "a cached batch is not whole; reading it from the database");
      return undefined;
    } catch (error) {
      lease?.release();
      this.failed({ err: error, file: name }, "could not read a cached batch; reading it from the database");
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  /** Writes a batch in the background; a failure is logged and the batch stays in the database. */
  write(key: CachedBatchKey, body: Buffer): void {
    const name = fileName(key);
    if (!name || body.length !== key.bytes) return;
    const done = this.writeFile(name, body)
      .catch((error: unknown) => this.failed({ err: error }, "could not write a batch to the feed cache; it is served from the database"))
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** Resolves once the writes and the trim under way have ended: before the directory is removed. */
  async settled(): Promise<void> {
    while (this.pending.size > 0 || this.trimming) await Promise.allSettled([...this.pending, this.trimming]);
  }

  private async writeFile(name: string, body: Buffer): Promise<void> {
    this.ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 })
      .then(() => this.trim())
      .catch((error: unknown) => {
        // Tried again with the next write: the operator may mend the directory meanwhile.
        this.ready = undefined;
        throw error;
      });
    await this.ready;
    // No fsync: a file the disk lost is read from the database again, and a sync per batch would
    // compete with the database's own commits for the disk.
    const part = join(this.dir, `${name}.${randomUUID()}${PART}`);
    try {
      await writeFile(part, body, { mode: 0o600 });
      await rename(part, join(this.dir, name));
    } catch (error) {
      // A full disk leaves no half-written file behind until the next trim.
      await unlink(part).catch(() => {});
      throw error;
    }
    this.writtenSinceTrim += body.length;
    if (this.writtenSinceTrim >= this.limitBytes / 8) {
      this.writtenSinceTrim = 0;
      this.trimming ??= this.trim()
        .catch((error: unknown) => this.failed({ err: error }, "could not trim the feed cache"))
        .finally(() => (this.trimming = undefined));
    }
  }

  /** Logs a failure, at most once a minute: a directory that cannot be written fails every batch. */
  private failed(details: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if (now - this.lastFailureLogged < 60_000) return;
    this.lastFailureLogged = now;
    this.logger?.warn({ ...details, dir: this.dir }, message);
  }

  /** Removes the oldest files until the directory holds at most `TRIM_TO` of the limit. */
  private async trim(): Promise<void> {
    const files: { name: string; bytes: number; modified: number }[] = [];
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(SUFFIX) && !name.endsWith(PART)) continue;
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (!info?.isFile()) continue;
      // Another process's write under way is left alone; one older than a minute was abandoned.
      if (name.endsWith(PART)) {
        if (Date.now() - info.mtimeMs > 60_000) await unlink(join(this.dir, name)).catch(() => {});
        continue;
      }
      files.push({ name, bytes: info.size, modified: info.mtimeMs });
    }
    let total = files.reduce((sum, file) => sum + file.bytes, 0);
    if (total <= this.limitBytes) return;
    files.sort((a, b) => a.modified - b.modified);
    for (const file of files) {
      if (total <= this.limitBytes * TRIM_TO) break;
      await unlink(join(this.dir, file.name)).catch(() => {});
      total -= file.bytes;
    }
  }
}

/**
 * The file's name, from parts checked to be ids, a position and a digest, so that no value can
 * name a path outside the directory; undefined for anything else.
 */
function fileName({ organizationId, afterSeq, lastId, rendering }: CachedBatchKey): string | undefined {
  if (!UUID.test(organizationId) || !UUID.test(lastId) || !RENDERING.test(rendering) || !Number.isSafeInteger(afterSeq) || afterSeq < 0) return undefined;
  return `${organizationId}.${afterSeq}.${lastId}.${rendering}${SUFFIX}`;
}
