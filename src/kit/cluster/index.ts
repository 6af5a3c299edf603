/**
 * The kit's cluster part, for labs that fail a node of `mqlab up --nodes 3`: the cluster's nodes,
 * link cuts, a leader-following stream of paced producers and its history.
 */
export {
  History,
  analyse,
  confirmedAfter,
  firstConfirmAfter,
  firstOutcomes,
  historyChecks,
  historyEvent,
  outcomes,
  unconfirmedResentCheck,
  type HistoryAnalysis,
  type HistoryEntry,
} from './history.js';
export { clusterRunning, openLeaderStream, type Held, type HoldOptions, type LeaderStream } from './leader-stream.js';
export { holdDelivery, type HeldDelivery } from './held-delivery.js';
export { recordConsumed, recordTimeout, type RecordConsumed } from './recorded-clients.js';
export { electionBoundOption, streamProducerOptions, type StreamProducerOptions } from './stream-options.js';
export {
  ownCluster,
  quorumQueue,
  type ClusterNode,
  type OwnCluster,
  type ReplicaStatus,
} from '../../services/cluster.js';
export { REPLACED_REPLICA_GONE_MS, declareReplicated, replicaIndex, viewOf } from '../../services/cluster-watch.js';
export { cutLinks, linkCutRefusal, type LinkCut } from '../../services/link-cut.js';
