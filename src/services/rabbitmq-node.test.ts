import { describe, expect, it } from 'vitest';
import { bootFailure, featureFlagSyncRace, portTaken } from './rabbitmq-node.js';

// the head of the crash dump a 3.10.8 cluster node left when it lost the feature-flag sync race
// (seen once, `up --nodes 3 --backend system` right after a `down`), shortened inside the stack
const RACE_DUMP = [
  '=erl_crash_dump:0.5',
  'Wed Dec  2 16:40:11 2026',
  "Slogan: Kernel pid terminated (application_controller) ({application_start_failure,rabbit,{{incompatible_feature_flags,{badrpc,{'EXIT',{{badmap,undefined},[{maps,get,[depends_on,undefined,[]],[]},{rabbit_feature_flags,do_sync_feature_flags_with_node,1,[]}]}}}},{rabbit,start,[normal,[]]}}})",
  'System version: Erlang/OTP 25 [erts-13.1.5]',
].join('\n');

describe('bootFailure: why a node ended at boot, from what it left', () => {
  it("quotes the crash dump's slogan over the console log", () => {
    const reason = bootFailure(RACE_DUMP, 'BOOT FAILED\nCrash dump is being written to: erl_crash.dump...done\n');
    expect(reason).toMatch(/^Kernel pid terminated \(application_controller\) \(\{application_start_failure,rabbit,/);
    expect(featureFlagSyncRace(reason)).toBe(true);
    expect(portTaken(reason)).toBe(false);
  });

  it("without a dump, the console log's last line that is not the dump notice", () => {
    const console =
      'ERROR: could not bind to distribution port 27372, it is in use by another node: mqlab@localhost\n\nCrash dump is being written to: erl_crash.dump...done\n';
    const reason = bootFailure(null, console);
    expect(reason).toBe(
      'ERROR: could not bind to distribution port 27372, it is in use by another node: mqlab@localhost',
    );
    expect(portTaken(reason)).toBe(27372);
    expect(featureFlagSyncRace(reason)).toBe(false);
  });

  it('a port taken is named as such, in the words the broker uses', () => {
    // 3.10.8 with the AMQP port taken: the slogan abbreviates the eaddrinuse away but names the port
    expect(
      portTaken(
        'init terminating in do_boot ({error,{could_not_start_listener,127.0.0.1,7772,{{shutdown,{_}},{child,undefined,rabbit_tcp_listener_sup_127.0.0.1:7772,{_},transient,false,infinity,supervisor,[_]}}}})',
      ),
    ).toBe(7772);
    expect(portTaken('{listen_error,eaddrinuse}')).toBe(true);
    expect(portTaken('{dist_port_already_used,27372,not_erlang,"localhost"}')).toBe(true);
    expect(portTaken('{incompatible_feature_flags,{error,unsupported}}')).toBe(false);
  });

  it('a real incompatibility (no undefined registry) is not the race', () => {
    expect(featureFlagSyncRace('{incompatible_feature_flags,{badrpc,nodedown}}')).toBe(false);
  });
});
