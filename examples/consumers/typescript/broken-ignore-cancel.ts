/** BROKEN on purpose (mqlab check must find it: stuck): the broker's cancel and a closed channel or connection are ignored: alive, consuming nothing. */
import { CORRECT, runConsumer } from './consumer.js';

await runConsumer({ ...CORRECT, cancelled: 'ignore' });
