/** A Lambda `Context` for running handlers outside Lambda: the local stack's own (one of it). */
export { lambdaContext as fakeLambdaContext } from '../local/lambda-context.js';
