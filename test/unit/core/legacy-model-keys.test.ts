import { describe, expect, it } from 'vitest';
import { openRunJournal } from '../../../lib/core/index.js';
import { InMemoryRunJournalStore } from '../../../lib/stores/index.js';

const OLD = `openai:${'a'.repeat(64)}`;
const NEW = `openai:h:${'b'.repeat(64)}`;

/** A journal of run r1 holding one model response under `key`, opened as a replay. */
async function journalWith(key: string) {
  const store = new InMemoryRunJournalStore();
  await store.record('s1', 'r1', { models: [{ key, response: { answer: 1 } }] });
  return openRunJournal({ store, sessionId: 's1', runId: 'r1', replay: true });
}

describe('model responses recorded under the previous whole-request keys', () => {
  it('are served when the chained key misses and the previous key matches', async () => {
    // Prepare
    const journal = await journalWith(OLD);

    // Act
    const found = journal.recordedModel(NEW, () => OLD);

    // Assess
    expect(found).toEqual({ answer: 1 });
  });

  it('are not looked for in a journal of chained keys: the whole request is not hashed again', async () => {
    // Prepare
    const journal = await journalWith(NEW);
    let asked = 0;
    const legacy = () => {
      asked++;
      return OLD;
    };

    // Act
    const hit = journal.recordedModel(NEW, legacy);
    const miss = journal.recordedModel(`openai:h:${'c'.repeat(64)}`, legacy);

    // Assess
    expect(hit).toEqual({ answer: 1 });
    expect(miss).toBeUndefined();
    expect(asked).toBe(0);
  });

  it('miss when neither key matches, and the chained key wins when both are there', async () => {
    // Prepare
    const journal = await journalWith(OLD);
    await journal.recordModel(NEW, { answer: 2 });

    // Act
    const other = journal.recordedModel(
      `openai:h:${'c'.repeat(64)}`,
      () => `openai:${'d'.repeat(64)}`,
    );
    const both = journal.recordedModel(NEW, () => OLD);

    // Assess
    expect(other).toBeUndefined();
    expect(both).toEqual({ answer: 2 });
  });
});
