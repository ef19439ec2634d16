/** One of a principal's sessions as the owner index keeps it (written when the session is created). */
export interface SessionIndexEntry {
  sessionId: string;
  createdAt: number;
  /** The life of the id this entry is for: an entry of an earlier life is skipped on read. */
  incarnation?: string;
}

/** Where a page starts: just past this entry (newest first). */
export interface SessionIndexPosition {
  createdAt: number;
  sessionId: string;
}

/**
 * A principal's sessions, newest first (`GET /sessions`). Entries are written before the session
 * they name, so none is ever missing; an entry whose session is gone or is another's now is
 * skipped by the reader (lib/app/session-list.ts).
 */
export interface SessionIndex {
  add(owner: string, entry: SessionIndexEntry): Promise<void>;
  page(
    owner: string,
    options: { limit: number; after?: SessionIndexPosition },
  ): Promise<{ entries: SessionIndexEntry[]; more: boolean }>;
}
