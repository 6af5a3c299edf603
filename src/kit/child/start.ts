/**
 * A child started ahead (runChild's `startWhen`): told so by this variable, it connects, then waits
 * for the parent's word on stdin before its work (src/kit/child/runtime.ts). Its own file: the parent's
 * and the child's side both read it, and neither loads the other's modules.
 */
export const WAIT_FOR_START_ENV = 'MQLAB_CHILD_WAIT_FOR_START';
