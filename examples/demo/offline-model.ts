import {
  type RecordedRequest,
  type ScriptEntry,
  type ScriptedModelServer,
  type ScriptedTurn,
  startScriptedModelServer,
} from '../../lib/testing/index.js';

type Item = Record<string, any>;

const KNOWN_ZONES: Record<string, string> = {
  'new york': 'America/New_York',
  'san francisco': 'America/Los_Angeles',
  'los angeles': 'America/Los_Angeles',
  seattle: 'America/Los_Angeles',
  beijing: 'Asia/Shanghai',
  delhi: 'Asia/Kolkata',
  mumbai: 'Asia/Kolkata',
  utc: 'UTC',
  gmt: 'UTC',
};
const REGIONS = ['Europe', 'America', 'Asia', 'Australia', 'Africa', 'Pacific'];
/** Words that end a place name or are no place at all. */
const FILLER = new Set(
  (
    'the my your our here there it weather forecast temperature time now today tonight ' +
    'tomorrow like outside please and or for at on right this'
  ).split(' '),
);

/**
 * A stand-in for a real model so the demo works without an API key: it reads the Responses API
 * request, calls the demo's tools when asked about weather or time, and phrases their results.
 */
export const demoResponder: ScriptEntry = (request: RecordedRequest): ScriptedTurn => {
  const input: Item[] = Array.isArray(request.body?.input) ? request.body.input : [];
  const outputs = trailingToolOutputs(input);
  if (outputs.length > 0) {
    return { text: outputs.map((output) => describeOutput(output, input)).join(' ') };
  }
  const text = userText(input.at(-1));
  if (/\b(?:book|reserve)\b.*\btable\b/i.test(text)) {
    const booking = bookingIn(text);
    if (!booking) {
      return { text: 'For how many people, and when? Try "book a table for 2 at 8pm".' };
    }
    return { toolCalls: [{ name: 'book_table', arguments: booking }] };
  }
  if (/\bweather\b|\bforecast\b|\btemperature\b/i.test(text)) {
    const city = placeIn(text);
    if (!city) return { text: 'Which city? Try "What is the weather in Paris?"' };
    return { toolCalls: [{ name: 'get_weather', arguments: { city } }] };
  }
  if (/\btime\b|\bclock\b/i.test(text)) {
    return { toolCalls: [{ name: 'get_time', arguments: { timeZone: guessZone(text) } }] };
  }
  return {
    text:
      `You said: "${text.trim()}". I am the offline scripted model (no OPENAI_API_KEY is set), ` +
      'so I only understand three things: the weather in a city ("weather in Paris?"), the ' +
      'current time ("what time is it in Tokyo?") and booking a table ("book a table for 2 at ' +
      '8pm", which a person approves first). Set OPENAI_API_KEY to talk to a real model.',
  };
};

/** The scripted model server answering every request with `demoResponder`. */
export function startOfflineModel(): Promise<ScriptedModelServer> {
  return startScriptedModelServer({ fallback: demoResponder });
}

function trailingToolOutputs(input: Item[]): Item[] {
  const outputs: Item[] = [];
  for (let i = input.length - 1; i >= 0 && input[i]?.type === 'function_call_output'; i--) {
    outputs.unshift(input[i] as Item);
  }
  return outputs;
}

function userText(item: Item | undefined): string {
  const content = item?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: Item) => (typeof part?.text === 'string' ? part.text : '')).join(' ');
}

/** One sentence from a tool's output; the tool's name comes from the call with that id. */
function describeOutput(output: Item, input: Item[]): string {
  const call = input.find(
    (item) => item.type === 'function_call' && item.call_id === output.call_id,
  );
  const raw = outputText(output.output);
  let data: Item | undefined;
  try {
    data = JSON.parse(raw);
  } catch {
    data = undefined;
  }
  if (call?.name === 'get_weather' && data?.city) {
    return `Demo data: in ${data.city} it is ${data.celsius}°C and ${data.conditions}.`;
  }
  if (call?.name === 'get_time' && data?.now) {
    return `In ${data.timeZone} it is now ${data.now}.`;
  }
  if (call?.name === 'book_table') {
    if (data?.booked) {
      return (
        `Booked a table for ${data.people} at ${data.time} (confirmation ${data.confirmation}). ` +
        'Demo: nothing was really booked.'
      );
    }
    // A denied call: the framework sends the approver's message (or its default) instead.
    if (!raw.startsWith('Error: ')) return `I did not book the table: ${raw}`;
  }
  const name = call?.name ?? 'the tool';
  if (raw.startsWith('Error: ')) return `Sorry, ${name} failed: ${raw.slice('Error: '.length)}`;
  return `${name} answered: ${raw}`;
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output.map((part: Item) => (typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return JSON.stringify(output);
}

const NUMBERS = 'one two three four five six seven eight nine ten eleven twelve'.split(' ');

/** "book a table for 2 at 8pm" → `{ people: 2, time: '8pm' }`; undefined when either is missing. */
function bookingIn(text: string): { people: number; time: string } | undefined {
  const count = /\bfor\s+(\d{1,2}|[a-z]+)\b/i.exec(text)?.[1]?.toLowerCase();
  const people = count && /^\d+$/.test(count) ? Number(count) : NUMBERS.indexOf(count ?? '') + 1;
  const time = /\bat\s+(\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?|noon|midnight)(?![\w:])/i
    .exec(text)?.[1]
    ?.replace(/\s+/g, '');
  if (!people || people > 20 || !time) return undefined;
  return { people, time };
}

/** The place the user names: up to three words after "in" (e.g. "New York"), else the last word. */
function placeIn(text: string): string | undefined {
  const after = /\bin\s+([^?.!,;:]+)/i.exec(text)?.[1];
  const words: string[] = [];
  for (const word of after?.trim().split(/\s+/) ?? []) {
    if (FILLER.has(word.toLowerCase()) || words.length === 3) break;
    words.push(word);
  }
  if (after === undefined) {
    const last = text.match(/\p{L}[\p{L}'’-]*/gu)?.at(-1);
    if (last && !FILLER.has(last.toLowerCase())) words.push(last);
  }
  if (words.length === 0) return undefined;
  return words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ');
}

/** An IANA zone named outright, a known city, `<Region>/<City>` if it exists, else UTC. */
function guessZone(text: string): string {
  const named = text.match(/\b[A-Z][A-Za-z]+\/[A-Za-z_]+(?:\/[A-Za-z_]+)?\b/)?.[0];
  if (named) return named;
  if (!/\bin\b/i.test(text)) return 'UTC';
  const place = placeIn(text);
  if (!place) return 'UTC';
  const known = KNOWN_ZONES[place.toLowerCase()];
  if (known) return known;
  const city = place.replace(/ /g, '_');
  return REGIONS.map((region) => `${region}/${city}`).find(isZone) ?? 'UTC';
}

function isZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}
