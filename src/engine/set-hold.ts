/**
 * A run's hold on the set of mqlab's services (src/services/set-lock.ts): shared, or exclusive when a
 * lab that stops, restarts or kills a service will run (`mqlab all` then holds it for the whole run).
 * The CLI begins it with the run's connections (src/engine/early-start.ts), while the engine loads: its
 * flock process then runs beside the loading instead of after it (~30 ms of every run's start).
 */
import type { PlannedLab } from '../lab/lab.js';
import type { Config } from '../core/config.js';
import { holdHome, type SetLock } from '../services/set-lock.js';
import { cannotRun } from './refusal.js';

export interface HoldRequest {
  plan: readonly PlannedLab[];
  config: Config;
  /** `mqlab all` (its lines say so) rather than one lab */
  summary: boolean;
  /** false (--no-wait): a set another run holds is one line and exit 2, not a wait */
  wait?: boolean | undefined;
  signal: AbortSignal;
}

export async function holdServices({ plan, config, summary, wait, signal }: HoldRequest): Promise<SetLock | null> {
  const entries = plan.map((p) => p.entry);
  let disruptive = false;
  for (const e of entries) if (e.disruptive && !(await cannotRun(e, config))) disruptive = true;
  const what = summary ? 'mqlab all' : (entries[0]?.name ?? 'mqlab');
  const say = (line: string) => process.stderr.write(`${what}: ${line}\n`);
  return holdHome(config.home, {
    mode: disruptive ? 'exclusive' : 'shared',
    what,
    wait: wait !== false,
    say,
    signal,
  });
}
