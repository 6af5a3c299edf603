/**
 * `mqlab all --jobs N`: what running labs at once needs besides the pool (src/engine/in-order.ts).
 * Each lab gets its own namespace, so two labs never share a queue, policy or table; its stderr
 * lines are kept until its turn comes, so the output reads lab by lab in the registry's order.
 */
import type { Config } from '../core/config.js';
import { checkNamespace } from '../core/config.js';
import type { LabMeta } from '../lab/lab.js';

/** the namespace of the lab at `index` (0-based) in a --jobs run: j1, j2, … or <ns>_j1, <ns>_j2, … */
export function jobNamespace(base: string, index: number): string {
  return base ? `${base}_j${index + 1}` : `j${index + 1}`;
}

/** the run's config for the lab at `index`, with that lab's own namespace */
export function jobConfig(config: Config, index: number): Config {
  const namespace = jobNamespace(config.namespace, index);
  checkNamespace(namespace, `--jobs gives each lab the namespace <namespace>_j<n>, here '${namespace}'`);
  return { ...config, namespace };
}

/** database connections for a run: labs running at once each hold one now and then */
export const dbPoolSize = (jobs: number) => Math.min(16, Math.max(4, 2 * jobs));

/** lab indexes, the longest expected first (src/engine/lab-times.ts): the long waits overlap, the short labs fill the gaps */
export function longestFirst<E>(entries: readonly E[], ms: (e: E) => number): number[] {
  return entries.map((_, i) => i).sort((a, b) => ms(entries[b]!) - ms(entries[a]!) || a - b);
}

/** each lab's stderr lines: printed at once (one lab at a time) or kept until the lab's turn */
export class LabOutput {
  private readonly kept: (string[] | null)[];

  constructor(
    labs: number,
    private readonly buffered: boolean,
    private readonly write: (line: string) => void,
  ) {
    this.kept = Array.from({ length: labs }, () => []);
  }

  stderrOf(index: number): (line: string) => void {
    return (line) => {
      const lines = this.kept[index];
      if (!this.buffered || !lines) this.write(line);
      else lines.push(line);
    };
  }

  /** print what lab `index` kept; later lines of it go straight out */
  flush(index: number): void {
    const lines = this.kept[index];
    this.kept[index] = null;
    for (const line of lines ?? []) this.write(line);
  }

  flushAll(): void {
    this.kept.forEach((_, i) => this.flush(i));
  }
}

/** the start order with the disruptive labs (which run alone) moved to the end */
export function disruptiveLast(entries: readonly Pick<LabMeta, 'disruptive'>[], order: number[]): number[] {
  return [...order.filter((i) => !entries[i]!.disruptive), ...order.filter((i) => entries[i]!.disruptive)];
}
