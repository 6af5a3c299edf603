import { describe, expect, it } from 'vitest';
import { dockerDecision, LOGS_HINT, ownProjectRunning } from './docker.js';

describe('docker or not (auto)', () => {
  it('needs an engine that answers', () => {
    expect(dockerDecision({ engine: null, compose: null })).toEqual({ use: false, why: 'no Docker engine answers' });
  });

  it('needs the compose plugin', () => {
    expect(dockerDecision({ engine: '27.3.1', compose: null })).toMatchObject({
      use: false,
      why: expect.stringContaining('compose plugin is missing') as unknown,
    });
  });

  it('needs Compose 2.17 or newer, for --wait-timeout', () => {
    expect(dockerDecision({ engine: '24.0.7', compose: 'Docker Compose version v2.16.0\n' })).toEqual({
      use: false,
      why: 'Docker Compose 2.16.0 is older than 2.17 (needed for --wait-timeout)',
    });
    expect(dockerDecision({ engine: '20.10.5', compose: 'docker-compose version 1.29.2, build 5becea4c' }).use).toBe(
      false,
    );
    expect(dockerDecision({ engine: '27.3.1', compose: 'Docker Compose version v2.17.0' }).use).toBe(true);
    expect(dockerDecision({ engine: '27.3.1', compose: 'Docker Compose version 2.29.7' })).toEqual({
      use: true,
      why: 'Docker 27.3.1 with Compose 2.29.7 answers',
    });
    expect(dockerDecision({ engine: '28.0.0', compose: 'Docker Compose version v10.0.0' }).use).toBe(true);
  });

  it('says so when the version cannot be read', () => {
    expect(dockerDecision({ engine: '27.3.1', compose: 'garbage' })).toMatchObject({
      use: false,
      why: "cannot read the Compose version from 'garbage'",
    });
  });

  it('the logs hint works from any folder: project name and compose file are given', () => {
    expect(LOGS_HINT).toMatch(/^docker compose -p mqlab -f \/.+\/compose\.yaml logs$/);
  });
});

describe('down (auto) stops only the compose project this copy of mqlab started', () => {
  const ls = (files: string, status = 'running(2)') =>
    JSON.stringify([{ Name: 'mqlab', Status: status, ConfigFiles: files }]);
  it('ours: project mqlab from this compose file, running', () => {
    expect(ownProjectRunning(ls('/pkg/compose.yaml'), '/pkg/compose.yaml')).toBe(true);
  });
  it('not ours: started from another copy (a clone, another npx cache), stopped, or no JSON', () => {
    expect(ownProjectRunning(ls('/src/mqlab/compose.yaml'), '/pkg/compose.yaml')).toBe(false);
    expect(ownProjectRunning(ls('/pkg/compose.yaml', 'exited(2)'), '/pkg/compose.yaml')).toBe(false);
    expect(ownProjectRunning('[]', '/pkg/compose.yaml')).toBe(false);
    expect(ownProjectRunning('unknown flag: --format', '/pkg/compose.yaml')).toBe(false);
  });
});
