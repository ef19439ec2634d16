import { InMemoryRunEventStore } from '../../../lib/stores/memory/run-event-store.js';
import { runEventStoreContract } from '../../../lib/testing/store-contract.js';

runEventStoreContract('in-memory', (c) => new InMemoryRunEventStore(c));
