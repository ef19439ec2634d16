import { describe } from 'vitest';
import {
  DynamoConnectionStore,
  DynamoIdempotencyStore,
  DynamoPausedRunStore,
  DynamoQuotaStore,
  DynamoRunJournalStore,
  DynamoRunRecordStore,
  DynamoSessionLock,
  DynamoSessionStore,
  DynamoToolLedger,
} from '../../../lib/stores/index.js';
import {
  connectionStoreContract,
  idempotencyStoreContract,
  pausedRunStoreContract,
  pendingApprovalIndexContract,
  quotaStoreContract,
  runJournalStoreContract,
  runRecordStoreContract,
  type StoreContext,
  sessionLockContract,
  sessionStoreContract,
  toolLedgerContract,
} from '../../../lib/testing/store-contract.js';
import { dynamoTargets, newTable } from './dynamo.js';

for (const { name, endpoint } of dynamoTargets()) {
  describe(name, () => {
    const options = async (context: StoreContext) => ({
      ...(await newTable(endpoint)),
      ...context,
    });
    sessionStoreContract(name, async (c) => new DynamoSessionStore(await options(c)));
    sessionLockContract(name, async (c) => new DynamoSessionLock(await options(c)));
    pausedRunStoreContract(name, async (c) => new DynamoPausedRunStore(await options(c)));
    pendingApprovalIndexContract(name, async (c) => new DynamoPausedRunStore(await options(c)));
    runRecordStoreContract(name, async (c) => new DynamoRunRecordStore(await options(c)));
    connectionStoreContract(name, async (c) => new DynamoConnectionStore(await options(c)));
    idempotencyStoreContract(name, async (c) => new DynamoIdempotencyStore(await options(c)));
    runJournalStoreContract(name, async (c) => new DynamoRunJournalStore(await options(c)));
    quotaStoreContract(name, async (c) => new DynamoQuotaStore(await options(c)));
    toolLedgerContract(name, async (c) => new DynamoToolLedger(await options(c)));
  });
}
