import { InProcessSessionLock } from '../../../lib/core/index.js';
import {
  InMemoryConnectionStore,
  InMemoryIdempotencyStore,
  InMemoryPausedRunStore,
  InMemoryQuotaStore,
  InMemoryRunJournalStore,
  InMemoryRunRecordStore,
  InMemorySessionStore,
} from '../../../lib/stores/index.js';
import {
  connectionStoreContract,
  idempotencyStoreContract,
  pausedRunStoreContract,
  pendingApprovalIndexContract,
  quotaStoreContract,
  runJournalStoreContract,
  runRecordStoreContract,
  sessionLockContract,
  sessionStoreContract,
} from '../../../lib/testing/store-contract.js';

// The in-memory ledger belongs to lib/tools; its contract run lives with it.
sessionStoreContract('in-memory', (c) => new InMemorySessionStore(c));
sessionLockContract('in-process', () => new InProcessSessionLock());
pausedRunStoreContract('in-memory', (c) => new InMemoryPausedRunStore(c));
pendingApprovalIndexContract('in-memory', (c) => new InMemoryPausedRunStore(c));
runRecordStoreContract('in-memory', (c) => new InMemoryRunRecordStore(c));
connectionStoreContract('in-memory', (c) => new InMemoryConnectionStore(c));
idempotencyStoreContract('in-memory', (c) => new InMemoryIdempotencyStore(c));
runJournalStoreContract('in-memory', (c) => new InMemoryRunJournalStore(c));
quotaStoreContract('in-memory', (c) => new InMemoryQuotaStore(c));
