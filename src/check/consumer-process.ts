/**
 * The user's consumer, run as a supervisor would run it (systemd, Kubernetes): `sh -c CMD` in a
 * process group of its own, started again after a short pause whenever it exits, until the check
 * stops it. Killing, freezing (SIGSTOP) and stopping address the whole group, so a consumer started
 * through `npm run …` or a shell script goes with its children. Nothing of it outlives `stop()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { lineSplitter } from '../kit/child/child.js';

interface Exit {
  /** as a shell reports it: 128 + the signal's number for a killed process */
  code: number;
  signal: string | null;
  at: number;
}

interface ConsumerHooks {
  /** a line the consumer printed on stdout */
  onLine?(line: string, stream: 'stdout' | 'stderr'): void;
  /** an instance started (n = 1 for the first) */
  onStart?(n: number): void;
  onExit?(exit: Exit, n: number): void;
}

/** the restart pause after n exits in a row: 100 ms × 2^n, at most 1 s (a supervisor's backoff) */
const restartPauseMs = (n: number) => Math.min(1000, 100 * 2 ** Math.max(0, n - 1));

export class ConsumerProcess {
  private child: ChildProcess | null = null;
  private stopping = false;
  private timer: NodeJS.Timeout | null = null;
  /** instances started */
  starts = 0;
  /** Date.now() when the instance running now (or the last one) started */
  startedAt = 0;
  /** exits since the last instance that the check saw consume (for the backoff) */
  exitsInARow = 0;
  readonly exits: Exit[] = [];
  private stderrTail: string[] = [];
  private ended: Promise<void> = Promise.resolve();

  constructor(
    readonly command: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly hooks: ConsumerHooks = {},
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** the last lines the consumer wrote on stderr (for an error message) */
  lastStderr(n = 3): string {
    return this.stderrTail.slice(-n).join(' | ');
  }

  start(): void {
    if (this.stopping || this.child) return;
    const child = spawn('sh', ['-c', this.command], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: this.env,
    });
    this.child = child;
    this.startedAt = Date.now();
    const n = ++this.starts;
    for (const stream of ['stdout', 'stderr'] as const) {
      const lines = lineSplitter((line) => {
        if (stream === 'stderr') this.stderrTail = [...this.stderrTail.slice(-19), line];
        this.hooks.onLine?.(line, stream);
      });
      child[stream]?.setEncoding('utf8').on('data', (text: string) => lines.push(text));
      child[stream]?.on('end', () => lines.end());
    }
    this.ended = new Promise<void>((resolve) => {
      child.on('error', () => {}); // sh is there; a missing command is sh's exit 127
      child.on('close', (code, signal) => {
        // whatever the shell left in its group goes with it
        signalGroup(child.pid, 'SIGKILL');
        const exit: Exit = {
          code: signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? -1),
          signal,
          at: Date.now(),
        };
        this.exits.push(exit);
        this.child = null;
        this.exitsInARow += 1;
        this.hooks.onExit?.(exit, n);
        if (!this.stopping) this.timer = setTimeout(() => this.start(), restartPauseMs(this.exitsInARow));
        resolve();
      });
    });
    this.hooks.onStart?.(n);
  }

  /** the instance running now consumed: the next exit restarts it after the shortest pause */
  consumed(): void {
    this.exitsInARow = 0;
  }

  /** SIGKILL the whole group at once (synchronous: a proxy seam calls it between two frames); restarted after */
  kill(): void {
    signalGroup(this.child?.pid, 'SIGKILL');
  }

  freeze(): void {
    signalGroup(this.child?.pid, 'SIGSTOP');
  }

  thaw(): void {
    signalGroup(this.child?.pid, 'SIGCONT');
  }

  /** resolves when `n` instances have exited in all (polled: an instance may exit and restart between two looks) */
  async exitedTimes(n: number, signal?: AbortSignal): Promise<void> {
    while (this.exits.length < n && !signal?.aborted) await new Promise((r) => setTimeout(r, 10));
  }

  /** no restart from now on: SIGTERM (a thawed group), SIGKILL after `graceMs`, and wait for the exit */
  async stop(graceMs = 2000): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const pid = this.child?.pid;
    if (!this.child) return;
    signalGroup(pid, 'SIGCONT');
    signalGroup(pid, 'SIGTERM');
    const kill = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
    await this.ended;
    clearTimeout(kill);
  }
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}
