import { describe, expect, it } from 'vitest';
import { CLASS_TAG, classDefinitions, deleteExpression, removedNames } from './definitions.js';
import { checkStudentName, numberedNames, withStudents, listNames, DEFAULT_LIMITS } from './roster.js';
import { studentCard, tunnelCommand } from './lines.js';
import { portsFor } from '../core/defaults.js';

const students = [
  { name: 's1', password: 'pw-one' },
  { name: 'alice', password: 'pw-two' },
];

describe("a class's broker definitions (one import)", () => {
  const defs = classDefinitions(students, { queues: 250, connections: 40 }, (pw) => `hash(${pw})`);

  it('a user per student: policymaker (their own vhosts in the management UI), no monitoring, no password in clear', () => {
    expect(defs.users.map((u) => [u.name, u.tags, u.password_hash])).toEqual([
      ['s1', ['policymaker', CLASS_TAG], 'hash(pw-one)'],
      ['alice', ['policymaker', CLASS_TAG], 'hash(pw-two)'],
    ]);
    expect(JSON.stringify(defs)).not.toContain('"pw-one"');
    expect(defs.users.every((u) => !u.tags.includes('monitoring') && !u.tags.includes('administrator'))).toBe(true);
    expect(defs.users[0]!.limits).toEqual({ 'max-connections': 40 });
  });

  it('a vhost per student with their limits, and permissions on that vhost only', () => {
    expect(defs.vhosts.map((v) => v.name)).toEqual(['s1', 'alice']);
    expect(defs.permissions).toEqual([
      { user: 's1', vhost: 's1', configure: '.*', write: '.*', read: '.*' },
      { user: 'alice', vhost: 'alice', configure: '.*', write: '.*', read: '.*' },
    ]);
    expect(defs.parameters[1]).toEqual({
      vhost: 'alice',
      component: 'vhost-limits',
      name: 'limits',
      value: { 'max-queues': 250, 'max-connections': 40 },
    });
  });

  it('one eval removes the named students and every tagged one; its printed value lists them', () => {
    const e = deleteExpression(['s1', 'alice'], true);
    expect(e).toContain('[<<"s1">>, <<"alice">>]');
    expect(e).toContain(`lists:member('${CLASS_TAG}'`);
    expect(() => deleteExpression(['bad"name'], false)).toThrow();
    expect(removedNames('[<<"alice">>,<<"s1">>]\n')).toEqual(['alice', 's1']);
  });
});

describe('the roster', () => {
  it('names are namespaces, and none of mqlab’s own', () => {
    expect(() => checkStudentName('s3')).not.toThrow();
    for (const bad of ['S3', '3s', 'lab', 'app', 'postgres', 'pg_x', 'mqlab_class', 'a'.repeat(25), 'a-b'])
      expect(() => checkStudentName(bad), bad).toThrow();
  });

  it('adding keeps who is there (and their password), adds the others', () => {
    const first = withStudents(null, numberedNames(2), DEFAULT_LIMITS);
    expect(first.added.map((s) => s.name)).toEqual(['s1', 's2']);
    const again = withStudents(first.roster, numberedNames(3), DEFAULT_LIMITS);
    expect(again.added.map((s) => s.name)).toEqual(['s3']);
    expect(again.roster.students[0]).toEqual(first.roster.students[0]);
    expect(new Set(again.roster.students.map((s) => s.password)).size).toBe(3);
    expect(listNames(numberedNames(30))).toBe('s1, s2, s3, … s30 (30)');
  });
});

describe("a student's line", () => {
  it('their own account on the three URLs, their vhost and namespace; pasted whole', () => {
    const card = studentCard({ name: 's3', password: 'pw3' }, portsFor(2500));
    expect(card.urls).toEqual({
      amqp: 'amqp://s3:pw3@127.0.0.1:8272/s3',
      pg: 'postgres://s3:pw3@127.0.0.1:8032/lab',
      mgmt: 'http://s3:pw3@127.0.0.1:18272',
    });
    expect(card.line).toBe(
      'export MQLAB_STUDENT=s3 MQLAB_NAMESPACE=s3 MQLAB_AMQP_URL=amqp://s3:pw3@127.0.0.1:8272/s3 MQLAB_PG_URL=postgres://s3:pw3@127.0.0.1:8032/lab MQLAB_MGMT_URL=http://s3:pw3@127.0.0.1:18272',
    );
    expect(tunnelCommand(portsFor(0))).toBe(
      'ssh -N -L 5772:127.0.0.1:5772 -L 5532:127.0.0.1:5532 -L 15772:127.0.0.1:15772 STUDENT@TEACHER-HOST',
    );
  });
});
