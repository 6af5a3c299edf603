/**
 * The outages of the broker-restart and db-outage groups: one of the services `mqlab up` started
 * stopped and started again (src/services/control.ts, as the db-outage and broker-restart labs do),
 * ready again when the app and the admin connect. Only on mqlab's own services.
 */
import type { OwnService } from '../../lab/lab.js';
import { noteSetLock } from '../../services/set-lock.js';
import type { RunEnv } from '../scenario.js';

/** why this run cannot stop and start its services (null: it can) */
export async function ownServicesOnly(env: RunEnv): Promise<string | null> {
  const { ownServicesRefusal } = await import('../../services/control.js');
  const refusal = ownServicesRefusal(env.config);
  return refusal && refusal.replace('this lab stops and starts them', 'this group stops and starts them');
}

export async function ownControl(env: RunEnv) {
  const [{ hostOf }, { serviceControl }, { allUp, probe }] = await Promise.all([
    import('../../services/host.js'),
    import('../../services/control.js'),
    import('../../services/probe.js'),
  ]);
  const control = serviceControl(env.config, (b) => hostOf(env.config, b));
  return {
    async stop(service: OwnService) {
      noteSetLock(`to start ${service} again`);
      const stopped = await control.stop(service);
      env.say(`${service} stopped (pid ${stopped.pid ?? '?'})`);
      return stopped;
    },
    async start(service: OwnService) {
      const started = await control.start(service, async () => allUp(await probe(env.config)), 120_000);
      noteSetLock('to finish');
      env.say(`${service} accepts connections again (${started.readyAt - started.startAt} ms after its start)`);
      return started;
    },
  };
}
