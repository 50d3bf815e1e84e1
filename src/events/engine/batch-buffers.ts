/** Pooled buffers are sized in steps of this, so that batches of slightly different sizes share them. */
const STEP = 64 * 1024;

/** A buffer lent out until `release` is called; calling it again does nothing. */
export interface BufferLease {
  buffer: Buffer;
  release(): void;
}

/**
 * Buffers that the feed cache reads its files into, lent out and given back, instead of a new
 * 400 kB buffer per batch served. A new buffer is memory outside V8's heap that only a garbage
 * collection hands back; at a thousand batches a second, once a process has run for a while, V8
 * answers that pressure with a full collection every few dozen batches, and a catch-up then cost
 * twice the CPU (bench/HISTORY.md, "Batches in reused buffers").
 *
 * A buffer is lent to one reader at a time. Whoever was lent it gives it back only when nothing
 * can read it any more (the feed: once the response that sent it has closed); until then the pool
 * never hands it to anyone else, so no answer can carry bytes written for another. A lease never
 * given back is left to the garbage collector, as any buffer would be. The pool keeps at most
 * `maxFree` buffers of at most `maxBytes` each.
 */
export class BatchBuffers {
  private readonly free: Buffer[] = [];

  constructor(
    private readonly maxFree = 16,
    private readonly maxBytes = 4 * 1024 * 1024,
  ) {}

  /** A buffer of at least `size` bytes, with whatever it held before: the caller writes what it reads. */
  acquire(size: number): BufferLease {
    const index = this.free.findIndex((buffer) => buffer.length >= size);
    const buffer = index >= 0 ? this.free.splice(index, 1)[0] : Buffer.allocUnsafeSlow(Math.max(1, Math.ceil(size / STEP)) * STEP);
    let lent = true;
    return {
      buffer,
      release: () => {
        if (!lent) return;
        lent = false;
        this.giveBack(buffer);
      },
    };
  }

  /** Buffers waiting to be lent (for tests). */
  get idle(): number {
    return this.free.length;
  }

  private giveBack(buffer: Buffer): void {
    if (buffer.length > this.maxBytes) return;
    if (this.free.length < this.maxFree) {
      this.free.push(buffer);
      return;
    }
    // Full: a bigger buffer takes the smallest one's place, so that the batches of the moment fit.
    let smallest = 0;
    for (let i = 1; i < this.free.length; i++) if (this.free[i].length < this.free[smallest].length) smallest = i;
    if (this.free[smallest].length < buffer.length) this.free[smallest] = buffer;
  }
}
