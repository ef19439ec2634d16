/** Where `Symbol.asyncIterator` (and whatever else async generators inherit) lives. */
const AsyncIteratorPrototype = Object.getPrototypeOf(
  Object.getPrototypeOf((async function* () {})()),
) as object;

/**
 * An async generator that calls `start` on its first `next()` and from then on is the generator
 * `start` returned: `Runtime.stream` runs its setup lazily, as an async generator function body
 * would, without a delegating generator of its own that costs every event a step. A `return` or
 * `throw` before the first `next()` ends it without starting it, as it ends a generator.
 */
export function lazyStream<T>(
  start: () => AsyncGenerator<T, void, undefined>,
): AsyncGenerator<T, void, undefined> {
  let inner: AsyncGenerator<T, void, undefined> | undefined;
  let ended = false;
  const stream: Omit<AsyncGenerator<T, void, undefined>, typeof Symbol.asyncIterator> = {
    next() {
      if (!inner && ended) return Promise.resolve({ done: true, value: undefined });
      inner ??= start();
      return inner.next();
    },
    return(value) {
      if (inner) return inner.return(value);
      ended = true;
      return Promise.resolve({ done: true, value: value as undefined });
    },
    throw(err) {
      if (inner) return inner.throw(err);
      ended = true;
      return Promise.reject(err);
    },
  };
  return Object.setPrototypeOf(stream, AsyncIteratorPrototype) as AsyncGenerator<
    T,
    void,
    undefined
  >;
}
