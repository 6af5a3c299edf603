/**
 * ctx.services for labs whose meta says `disruptive`: a planned outage of one of the services
 * mqlab started. The service is stopped, the lab observes it down, and it is started again in a
 * `finally` (an error or Ctrl-C in between still brings it back), then probed until the app can
 * connect. Meanwhile the run's own connections losing that service are the experiment, not an
 * environment error (LossWatch.expect). Knows no lab. The service control (execa and the backends)
 * loads only when an outage starts: a lab that stops nothing does not pay for it.
 */
import type { Config } from '../core/config.js';
import type { EventLog } from '../log/events.js';
import type { LossWatch } from '../core/lost.js';
import { LabError } from '../core/errors.js';
import { noteSetLock } from '../services/set-lock.js';
import type { LabServices, Outage, OwnService, StartedAgain, Stopped } from '../lab/lab.js';

/** `say`: a line for the user (stderr), when the lab stops before the outage's end and the service is started again */
export function labServices(
  config: Config,
  watch: LossWatch,
  log: EventLog,
  disruptive: boolean,
  lab: string,
  say: (line: string) => void,
): LabServices {
  return {
    async outage<T>(
      service: OwnService,
      whileDown: (stopped: Stopped) => Promise<T>,
      opts: { readyTimeoutMs?: number } = {},
    ): Promise<Outage<T>> {
      if (!disruptive) throw new LabError(`${lab} stops ${service} but its meta does not say disruptive: true`);
      const [{ hostOf }, { serviceControl }, { allUp, probe }] = await Promise.all([
        import('../services/host.js'),
        import('../services/control.js'),
        import('../services/probe.js'),
      ]);
      const control = serviceControl(config, (b) => hostOf(config, b));
      watch.expect(service, true);
      let stopped: Stopped | undefined;
      let started: StartedAgain;
      let result: T;
      let ended = false;
      // what a run waiting for the set says it waits for (src/services/set-lock.ts)
      noteSetLock(`to start ${service} again`);
      try {
        stopped = await control.stop(service);
        log.emit('services', {
          status: 'stopped',
          service,
          pid: stopped.pid ?? undefined,
          probe: stopped.refused ?? 'connected',
        });
        result = await whileDown(stopped);
        ended = true;
      } finally {
        // also after an error or an interrupt: the next lab (and the next run) find the service up
        // ready: the app and the admin connect again (mqlab up's own probe; the other service never stopped)
        const ready = async () => allUp(await probe(config));
        started = await control
          .start(service, ready, opts.readyTimeoutMs ?? 120_000)
          .finally(() => watch.expect(service, false));
        noteSetLock('to finish');
        log.emit('services', {
          status: 'ready',
          service,
          pid: started.pid ?? undefined,
          startMs: started.readyAt - started.startAt,
        });
        // stopped early (Ctrl-C, an error): say that the service is back, as the lab's own line would have
        if (!ended && stopped)
          say(
            `${service} is running again (it accepted connections ${started.readyAt - started.startAt} ms after its start)`,
          );
      }
      return { stopped, started, result };
    },
  };
}
