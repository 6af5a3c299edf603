/** An error the user can act on: printed as one line plus what to do, exit code 2. */
export class EnvError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'EnvError';
  }
}

/** Wrong flags or arguments: exit code 2. */
export class UsageError extends EnvError {
  constructor(message: string, hint?: string) {
    super(message, hint);
    this.name = 'UsageError';
  }
}

/** The run was interrupted (Ctrl-C, SIGTERM): exit code 130. */
export class Interrupted extends Error {
  constructor(readonly signal = 'SIGINT') {
    super(`interrupted by ${signal}`);
    this.name = 'Interrupted';
  }
}

/** A lab could not carry out its experiment (not an assertion: the setup itself broke). */
export class LabError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabError';
  }
}

/** A bounded wait (ctx.within) ran out: a LabError, which a lab may catch to judge the missing outcome as a FAIL. */
export class TimedOut extends LabError {
  constructor(
    readonly waitedMs: number,
    readonly waitingFor: string,
  ) {
    super(`timed out after ${(waitedMs / 1000).toFixed(1)} s waiting for ${waitingFor}`);
    this.name = 'TimedOut';
  }
}

export const UP_HINT = 'run `mqlab up` (or `npm run up`) to start the lab services, then try again';
