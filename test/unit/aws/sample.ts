import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A sample event from events/. */
export function sampleEvent(path: string): any {
  return JSON.parse(readFileSync(join(import.meta.dirname, '../../../events', path), 'utf8'));
}
