import * as z from 'zod';
import { defineTool } from '../../tools/spec.js';

/** What the suite's tools saw, so checks can assert on calls, ids and context. */
export interface ContractRecord {
  weather: { city: string; callId: string; callsBefore: number }[];
  payments: { to: string; amount: number; callId: string }[];
}

/**
 * The suite's tools. `get_weather` counts its calls in the framework context (the round trip);
 * `send_payment` needs approval.
 */
export function contractTools(record: ContractRecord) {
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string() }),
    handler: ({ city }, ctx) => {
      const before = typeof ctx.context.weatherCalls === 'number' ? ctx.context.weatherCalls : 0;
      record.weather.push({ city, callId: ctx.callId, callsBefore: before });
      ctx.context.weatherCalls = before + 1;
      return { city, forecast: 'sunny', celsius: 21 };
    },
  });
  const payment = defineTool({
    name: 'send_payment',
    description: 'Send money to someone',
    input: z.object({ to: z.string(), amount: z.number() }),
    confirm: true,
    handler: ({ to, amount }, ctx) => {
      record.payments.push({ to, amount, callId: ctx.callId });
      return `sent ${amount} to ${to}`;
    },
  });
  return [weather, payment];
}
