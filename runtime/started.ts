/** Thrown by `Started.check` when a stop began during start-up: the stop, not the start, finishes. */
export class StartStopped extends Error {
  override name = 'StartStopped';
}

/**
 * What a start-up has started, with how to stop each, stopped newest first. A stop may begin while
 * the start-up still runs (a signal): it stops what has started so far, and the start-up, which
 * calls `check` between steps, goes no further.
 */
export class Started {
  private readonly steps: Array<() => Promise<void> | void> = [];
  private stopped: Promise<void> | undefined;

  get stopping(): boolean {
    return this.stopped !== undefined;
  }

  /** Registers how to stop what was just started. */
  add(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }

  check(): void {
    if (this.stopping) throw new StartStopped('stopped while starting');
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      let failure: unknown;
      // A step added while stopping (a start-up step that was under way) is taken in turn; one that
      // fails does not keep the others (the dev server) running.
      for (let step = this.steps.pop(); step; step = this.steps.pop()) {
        await Promise.resolve()
          .then(step)
          .catch((error: unknown) => {
            failure ??= error;
          });
      }
      if (failure) throw failure;
    })();
    return this.stopped;
  }
}
