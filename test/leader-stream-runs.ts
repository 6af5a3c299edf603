/**
 * Scripted runs of the leader-stream labs (partition, node-pause) for their verdicts' unit tests: a
 * History on a scripted clock, and the good run both labs share with the fault named as each lab
 * records it (cut … heal, pause … resume).
 */
import { History } from '../src/kit/cluster/history.js';

export type Step = [number, (h: History) => void];
export const at = (t: number, step: (h: History) => void): Step => [t, step];

/** a history on a scripted clock: each step at its own time (ms) */
export function scripted(steps: Step[]): History {
  let now = 0;
  const h = new History(() => now);
  for (const [t, step] of [...steps].sort((p, q) => p[0] - q[0])) {
    now = t;
    step(h);
  }
  return h;
}

/** when the scripted good run injects its fault and undoes it */
export const FAULT_AT = 1000;
export const UNDONE_AT = 20_000;

/**
 * a good run: before the fault A (through n2, the leader) and B (through n3) publish 1–4 and 5–8, all
 * confirmed; during it A's 9, 10 time out and B's 11, 12 are confirmed from 4.0 s; after it is undone
 * 9 and 10 are resent through n1 and confirmed; every id consumed once, 9 twice (unconfirmed: allowed)
 */
export function goodSteps(fault: { injected: string; undone: string }): Step[] {
  const s: Step[] = [];
  for (const id of [1, 2, 3, 4])
    s.push(
      at(100 + id, (h) => h.publish(id, 'n2')),
      at(200 + id, (h) => h.confirm(id, 'n2')),
    );
  for (const id of [5, 6, 7, 8])
    s.push(
      at(100 + id, (h) => h.publish(id, 'n3')),
      at(200 + id, (h) => h.confirm(id, 'n3')),
    );
  s.push(at(FAULT_AT, (h) => void h.injected(fault.injected, 'n2')));
  for (const id of [9, 10])
    s.push(
      at(1100 + id, (h) => h.publish(id, 'n2')),
      at(6100 + id, (h) => h.timeout(id, 'n2')),
    );
  s.push(
    at(1500, (h) => h.publish(11, 'n3')),
    at(4000, (h) => h.confirm(11, 'n3')),
  );
  s.push(
    at(1600, (h) => h.publish(12, 'n3')),
    at(4100, (h) => h.confirm(12, 'n3')),
  );
  s.push(at(UNDONE_AT, (h) => void h.injected(fault.undone, 'n2')));
  for (const id of [9, 10])
    s.push(
      at(21_000 + id, (h) => h.publish(id, 'n1')),
      at(21_100 + id, (h) => h.confirm(id, 'n1')),
    );
  for (let id = 1; id <= 12; id++) s.push(at(30_000 + id, (h) => h.consume(id, 'n1', false)));
  s.push(at(30_100, (h) => h.consume(9, 'n3', false)));
  return s;
}
