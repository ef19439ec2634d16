import { streamingSuite } from './streaming-suite.js';

streamingSuite('sqs-fanout');
