/**
 * quorum-failover's Try-this commands, as its page prints them (test/try-this-cluster.ts), on the cluster
 * suite's cluster. partition's and node-pause's: try-this-cut.cluster.int.test.ts (the other cluster).
 */
import { describe } from 'vitest';
import { useNamespace } from './helpers.js';
import { clusterPageTest } from './try-this-cluster.js';

useNamespace('s3'); // the pages' namespace; this page gives none, and its commands run in none, as printed

describe('the cluster labs’ "Try this" commands, as printed', () => {
  clusterPageTest('quorum-failover');
});
