import { describe, expect, it } from 'vitest';
import { loadSlot, resumeFrom, toPaused } from '../../../../lib/frameworks/adk/state.js';

const call = { id: 'call_pay_1', name: 'send_payment', args: { to: 'bob', amount: 10 } };
const events = [
  {
    id: 'e1',
    invocationId: 'i1',
    author: 'user',
    content: { role: 'user', parts: [{ text: 'Pay' }] },
  },
  {
    id: 'e2',
    invocationId: 'i1',
    author: 'agent',
    content: { role: 'model', parts: [{ functionCall: call }] },
  },
  {
    id: 'e3',
    invocationId: 'i1',
    author: 'agent',
    content: {
      role: 'user',
      parts: [
        {
          functionCall: {
            id: 'adk-confirm-1',
            name: 'adk_request_confirmation',
            args: { originalFunctionCall: call, toolConfirmation: { confirmed: false } },
          },
        },
      ],
    },
  },
];
const paused = toPaused({ schemaVersion: 1, state: { visits: 1 }, events }, [
  {
    confirmationId: 'adk-confirm-1',
    callId: 'call_pay_1',
    toolName: 'send_payment',
    args: call.args,
  },
]);

describe('ADK paused state', () => {
  it('answers each confirmation request with the decision, by the model’s call id', () => {
    // Act
    const { slot, message } = resumeFrom('s', paused, [
      { id: 'call_pay_1', status: 'denied', message: 'not today' },
    ]);

    // Assess
    expect(slot).toMatchObject({ state: { visits: 1 }, events });
    expect(message).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'adk-confirm-1',
            name: 'adk_request_confirmation',
            response: { confirmed: false, hint: 'not today' },
          },
        },
      ],
    });
  });

  it('writes edited arguments into the model’s call and the pinned copy ADK compares', () => {
    // Act
    const edited = { to: 'bob', amount: 7 };
    const { slot, message } = resumeFrom('s', paused, [
      { id: 'call_pay_1', status: 'approved', arguments: edited },
    ]);

    // Assess
    const text = JSON.stringify(slot.events);
    expect(text).not.toContain('"amount":10');
    expect(slot.events[1]).toMatchObject({
      content: { parts: [{ functionCall: { args: edited } }] },
    });
    expect(slot.events[2]).toMatchObject({
      content: { parts: [{ functionCall: { args: { originalFunctionCall: { args: edited } } } }] },
    });
    expect(message.parts?.[0]?.functionResponse?.response).toEqual({ confirmed: true });
  });

  it('refuses a corrupt slot or paused state with session-corrupt', () => {
    // Act / Assess
    expect(() => loadSlot('s', { schemaVersion: 2, state: {}, events: [] })).toThrow(
      expect.objectContaining({ code: 'session-corrupt' }),
    );
    expect(() => resumeFrom('s', { schemaVersion: 1, state: {}, events: [] }, [])).toThrow(
      expect.objectContaining({ code: 'session-corrupt' }),
    );
    expect(loadSlot('s', undefined)).toEqual({ schemaVersion: 1, state: {}, events: [] });
  });
});
