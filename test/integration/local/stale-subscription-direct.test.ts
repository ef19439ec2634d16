import { staleSubscriptionSuite } from './stale-subscription-suite.js';

staleSubscriptionSuite('direct');
