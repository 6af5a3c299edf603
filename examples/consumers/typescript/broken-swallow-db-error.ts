/** BROKEN on purpose (mqlab check must find it: stuck): a database error is logged and nothing else: the delivery is neither acked nor nacked. */
import { CORRECT, runConsumer } from './consumer.js';

await runConsumer({ ...CORRECT, dbError: 'swallow' });
