/** what kind of end an error is, as the --junit file's <error type> names it */
export type ErrorKind = 'usage' | 'environment' | 'interrupted' | 'internal';

/**
 * An error mqlab expects, carrying the exit code the program ends with (README "Exit codes": 2 a
 * usage or environment error, 130 interrupted, 1 anything else) and its kind. main reads both.
 */
export abstract class MqlabError extends Error {
  abstract readonly exitCode: 1 | 2 | 130;
  abstract readonly kind: ErrorKind;
}

/** An error the user can act on: printed as one line plus what to do, exit code 2. */
export class EnvError extends MqlabError {
  readonly exitCode = 2;
  readonly kind: 'environment' | 'usage' = 'environment';
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
  override readonly kind = 'usage';
  constructor(message: string, hint?: string) {
    super(message, hint);
    this.name = 'UsageError';
  }
}

/** The run was interrupted (Ctrl-C, SIGTERM): exit code 130. */
export class Interrupted extends MqlabError {
  readonly exitCode = 130;
  readonly kind = 'interrupted';
  constructor(readonly signal = 'SIGINT') {
    super(`interrupted by ${signal}`);
    this.name = 'Interrupted';
  }
}

/**
 * A lab could not carry out its experiment (not an assertion: the setup itself broke). The runner
 * reports it as the lab's error (exit 1 with the other labs' results); one that reaches main is exit 1.
 */
export class LabError extends MqlabError {
  readonly exitCode = 1;
  readonly kind = 'internal';
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
