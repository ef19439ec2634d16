// A pause shown in the chat may be decided elsewhere (an approver's inbox, the approvals queue):
// its run record says so. Polled while the pause is open here; a sync resume sends no events.
import { api, enc } from './api.js';

const EVERY_MS = 1000;
const ENDED = new Set(['completed', 'failed', 'timed-out']);

/**
 * Calls `onMoved(record)` when the run leaves `paused` without this page deciding (`open()` turns
 * false once it does), then `onEnded(record)` when it ends.
 */
export function watchPause(sessionId, runId, { open, onMoved, onEnded }) {
  let moved = false;
  const tick = async () => {
    if (!moved && !open()) return;
    const answer = await api(`/sessions/${enc(sessionId)}/runs/${enc(runId)}`).catch(() => ({}));
    const record = answer.status === 200 ? answer.body : undefined;
    if (record && record.status !== 'paused' && !moved) {
      moved = true;
      onMoved(record);
    }
    if (record && moved && ENDED.has(record.status)) return onEnded(record);
    // Paused again under the same run id: a new pause the chat shows on its next load.
    if (record?.status === 'paused' && moved) return;
    if (answer.status === 404) return;
    setTimeout(() => void tick(), EVERY_MS);
  };
  setTimeout(() => void tick(), EVERY_MS);
}
