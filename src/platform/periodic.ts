/**
 * Background work that runs now and then again `intervalMs` after each run ends (never two runs at
 * once), until stopped; `stop()` waits for a run under way. A failed run is handed to `onError`,
 * and the next one comes as usual. The timer does not keep the process alive.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** `stop()` was called (and `start()` not since): a long run should end early. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.run()
        .catch(this.onError)
        .then(() => this.schedule(this.intervalMs));
    }, delay);
    this.timer.unref();
  }
}
