import { describe, expect, it } from 'vitest';
import { CANCEL_MESSAGE, cancelPausedRun } from '../../../lib/app/cancel-run.js';
import { NotFound } from '../../../lib/app/errors.js';
import type { FrontDoor } from '../../../lib/app/front-door.js';
import { AgentKernelError } from '../../../lib/core/errors.js';

/** A front door that reads `run` and records the resumes asked of it. */
function doorWith(
  run: unknown,
  resume: () => Promise<unknown> = async () => ({ status: 'completed' }),
) {
  const resumes: unknown[] = [];
  const door = {
    readRun: async () => {
      if (run instanceof Error) throw run;
      return run;
    },
    resumeNow: async (request: unknown) => {
      resumes.push(request);
      return resume();
    },
  } as unknown as FrontDoor;
  return { door, resumes };
}

const request = { principal: 'alice', sessionId: 's1', runId: 'r1' };
const paused = {
  status: 'paused',
  reply: { status: 'paused', interruptions: [{ id: 'c1' }, { id: 'c2' }] },
};

describe('cancelPausedRun', () => {
  it('denies every pending call through the front door’s resume', async () => {
    const { door, resumes } = doorWith(paused);
    await cancelPausedRun(door, request);
    expect(resumes).toEqual([
      {
        principal: 'alice',
        sessionId: 's1',
        runId: 'r1',
        decisions: [
          { id: 'c1', status: 'denied', message: CANCEL_MESSAGE },
          { id: 'c2', status: 'denied', message: CANCEL_MESSAGE },
        ],
      },
    ]);
  });

  it.each(['running', 'queued', 'completed', 'failed', 'timed-out'])(
    'refuses a %s run with run-not-cancelable and resumes nothing',
    async (status) => {
      const { door, resumes } = doorWith({ status });
      await expect(cancelPausedRun(door, request)).rejects.toMatchObject({
        code: 'run-not-cancelable',
      });
      expect(resumes).toEqual([]);
    },
  );

  it('passes not-found on (another principal’s run reads as none)', async () => {
    const { door, resumes } = doorWith(new NotFound('Run "r1"'));
    await expect(cancelPausedRun(door, request)).rejects.toMatchObject({ code: 'not-found' });
    expect(resumes).toEqual([]);
  });

  it('a run resumed meanwhile (its paused run gone) is run-not-cancelable', async () => {
    const gone = async () => {
      throw new AgentKernelError('paused-run-not-found', 'No paused run');
    };
    const { door } = doorWith(paused, gone);
    await expect(cancelPausedRun(door, request)).rejects.toMatchObject({
      code: 'run-not-cancelable',
    });
  });
});
