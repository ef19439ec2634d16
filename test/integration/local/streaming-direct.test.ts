import { streamingSuite } from './streaming-suite.js';

streamingSuite('direct');
