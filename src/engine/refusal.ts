/**
 * Why a lab cannot run here, or null: the one rule the CLI (a lab run alone: one line, exit 2), the
 * runner (`mqlab all`: SKIP with the reason) and the set's hold (a lab that will not run takes no
 * exclusive hold) share. A class student's run (MQLAB_STUDENT) never runs a lab that stops,
 * restarts, kills or reconfigures a service (meta.disruptive: consumer-timeout sets the node's timeout below 4.3): those services are the whole class's. Then the
 * lab's own `requires` (a cluster, the services `mqlab up` started …).
 */
import type { Config } from '../core/config.js';
import type { LabMeta } from '../lab/lab.js';

/** the reason of a lab `mqlab all --skip` leaves out (a run's records leave such labs out too) */
export const LEFT_OUT = 'left out with --skip';

const studentRefusal = (student: string) =>
  `stops, restarts or reconfigures a service the whole class uses: the teacher runs it, not a student's credentials (MQLAB_STUDENT=${student})`;

export async function cannotRun(
  entry: Pick<LabMeta, 'disruptive' | 'requires'>,
  config: Config,
): Promise<string | null> {
  if (entry.disruptive && config.student) return studentRefusal(config.student);
  return (await entry.requires?.(config)) ?? null;
}
