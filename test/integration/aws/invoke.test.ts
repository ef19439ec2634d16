import { beforeEach, describe, expect, it } from 'vitest';
import { createInvokeHandler } from '../../../lib/aws/handlers/invoke.js';
import { useScriptedModelServer } from '../../helpers/model-server.js';
import { deployment, payments, sampleEvent } from './setup.js';

const server = useScriptedModelServer();
beforeEach(() => {
  payments.length = 0;
});

const payCall = { id: 'call_pay_1', name: 'send_payment', arguments: { to: 'bob', amount: 10 } };

describe('invoke function', () => {
  it('runs, pauses and resumes with the sample events', async () => {
    // Prepare
    const deployed = await deployment(server);
    const handler = createInvokeHandler(async () => deployed);
    server.push({ toolCalls: [payCall] }, { text: 'Paid Bob.' });

    // Act
    const paused: any = await handler(sampleEvent('invoke/run.json', { '"demo"': '"payer"' }));
    const done: any = await handler(
      sampleEvent('invoke/resume.json', {
        RUN_ID_FROM_THE_PAUSED_REPLY: paused.runId,
        CALL_ID_FROM_THE_INTERRUPTION: 'call_pay_1',
      }),
    );

    // Assess
    expect(paused).toMatchObject({ status: 'paused', sessionId: 'invoke-session-1' });
    expect(done).toMatchObject({ status: 'completed', text: 'Paid Bob.' });
    expect(payments).toEqual([{ to: 'bob', amount: 10 }]);
  });

  it('answers a retried invoke with the same requestId from the first run, not a second run', async () => {
    // Prepare
    const deployed = await deployment(server);
    const handler = createInvokeHandler(async () => deployed);
    server.push({ text: 'Once.' }, { text: 'Twice?!' });
    const event = {
      action: 'run',
      requestId: 'req-1',
      agent: 'payer',
      sessionId: 's-idem',
      input: 'Hi',
      principal: 'svc-billing',
    };

    // Act
    const first = await handler(event);
    const second = await handler({ ...event });

    // Assess
    expect(second).toEqual(first);
    expect(server.requests).toHaveLength(1);
    // The same requestId with another payload is refused.
    expect(await handler({ ...event, input: 'Something else' })).toMatchObject({
      type: 'error',
      code: 'request-conflict',
    });
  });

  it.each([
    ['a non-object', 'run', 'invalid-message'],
    ['an unknown action', { action: 'dance' }, 'invalid-message'],
    ['a missing agent', { action: 'run', input: 'x' }, 'invalid-message'],
    [
      'a prototype key',
      JSON.parse('{"action":"run","agent":"payer","input":"x","__proto__":{"a":1}}'),
      'forbidden-key',
    ],
  ])('refuses %s with a coded error and runs nothing', async (_label, event, code) => {
    // Prepare
    const deployed = await deployment(server);
    const handler = createInvokeHandler(async () => deployed);

    // Act
    const result = await handler(event);

    // Assess
    expect(result).toMatchObject({ type: 'error', code });
    expect(server.requests).toHaveLength(0);
  });

  it('reports errors with their code: no principal, unknown agent, another principal', async () => {
    // Prepare
    const deployed = await deployment(server);
    const handler = createInvokeHandler(async () => deployed);
    server.push({ text: 'Hello Alice.' });
    await handler({
      action: 'run',
      agent: 'payer',
      sessionId: 's-own',
      input: 'Hi',
      principal: 'alice',
    });

    // Act + Assess: without INVOKE_PRINCIPAL an invoke naming nobody is refused.
    expect(await handler({ action: 'run', agent: 'payer', input: 'x' })).toMatchObject({
      code: 'unauthorized',
    });
    expect(
      await handler({ action: 'run', agent: 'nobody', input: 'x', principal: 'alice' }),
    ).toMatchObject({ code: 'agent-not-found' });
    expect(
      await handler({
        action: 'run',
        agent: 'payer',
        sessionId: 's-own',
        input: 'Hi',
        principal: 'mallory',
      }),
    ).toMatchObject({ code: 'not-found' });
  });
});
