/**
 * partition's and node-pause's Try-this commands, as their pages print them (test/try-this-cluster.ts), on
 * the cluster suite's cluster that also runs those labs' own files (.ci/run PAUSE_AND_CUT).
 * quorum-failover's: try-this-failover.cluster.int.test.ts.
 */
import { describe } from 'vitest';
import { useNamespace } from './helpers.js';
import { clusterPageTest } from './try-this-cluster.js';

useNamespace('s3'); // the pages' namespace; these pages give none, and their commands run in none, as printed

describe('the cluster labs’ "Try this" commands, as printed', () => {
  clusterPageTest('partition');
  clusterPageTest('node-pause');
});
