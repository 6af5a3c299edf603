import { describe, expect, it } from 'vitest';
import { controlRefusal } from './control.js';
import { portsFor, urlsFor } from '../core/defaults.js';

const ports = portsFor(3000);
const urls = urlsFor(ports);
const config = { amqpUrl: urls.amqp, pgUrl: urls.pg, mgmtUrl: urls.mgmt, home: '/data/mqlab' };

describe('controlRefusal: only the services mqlab up started from this data folder may be stopped', () => {
  it('accepts the recorded backends with the default URLs of the offset ports', () => {
    for (const b of ['chroot', 'system', 'docker']) expect(controlRefusal(b, config, ports)).toBeNull();
  });

  it('refuses without a recorded backend, in one line', () => {
    expect(controlRefusal(null, config, ports)).toBe(
      'needs the services `mqlab up` started (no backend recorded in /data/mqlab; this lab stops and starts them)',
    );
  });

  it('refuses a URL that points elsewhere (another host or port), masking its password', () => {
    const why = controlRefusal('chroot', { ...config, amqpUrl: 'amqp://app:secret@broker.example:5672/lab' }, ports);
    expect(why).toBe(
      'needs the services `mqlab up` started: MQLAB_AMQP_URL is amqp://app:***@broker.example:5672/lab, not 127.0.0.1:8772 (this lab stops and starts them)',
    );
    expect(controlRefusal('system', { ...config, pgUrl: urls.pg.replace(':8532', ':5432') }, ports)).toMatch(
      /MQLAB_PG_URL .* not 127\.0\.0\.1:8532/,
    );
  });
});
