import { describe, expect, it } from 'vitest';
import { amqpTarget } from './link.js';

describe('amqpTarget', () => {
  it('decodes a percent-encoded UTF-8 password (amqplib would read %C3%BC as two Latin-1 letters)', () => {
    expect(amqpTarget('amqp://app:gr%C3%BCn%40x@127.0.0.1:5772/lab')).toEqual({
      protocol: 'amqp',
      hostname: '127.0.0.1',
      port: 5772,
      username: 'app',
      password: 'grün@x',
      vhost: 'lab',
    });
  });
  it('keeps the vhost escaped for amqplib, defaults, IPv6 and the query options', () => {
    expect(amqpTarget('amqp://u:p@host/%2F')).toMatchObject({ vhost: '%2F', hostname: 'host' });
    expect(amqpTarget('amqp://host')).toMatchObject({ vhost: '', username: '', password: '' });
    expect(amqpTarget('amqps://u:p@[::1]:5671/v?heartbeat=5&frameMax=8192')).toMatchObject({
      protocol: 'amqps',
      hostname: '::1',
      port: 5671,
      heartbeat: 5,
      frameMax: 8192,
    });
  });
});
