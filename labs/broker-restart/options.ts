/** The broker-restart lab's options: how long to wait for the node and the clients to come back. */
import { duration, type OptionSpecs } from '../../src/kit/index.js';

interface BrokerRestartOptions {
  /** how long the clients (and the lab) wait for the restarted node to accept connections */
  reconnectTimeoutMs: number;
}

export const options: OptionSpecs<BrokerRestartOptions> = {
  reconnectTimeoutMs: {
    flag: '--reconnect-timeout <duration>',
    description: 'how long the producer, the consumer and the lab wait for the restarted node to accept connections',
    default: '120s',
    parse: duration({ min: 5_000, max: 600_000 }),
  },
};
