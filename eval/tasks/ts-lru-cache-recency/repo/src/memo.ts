import { LRUCache } from "./lru";

export interface Memoized<A, R> {
  (arg: A): R;
  cache: LRUCache<A, R>;
}

/** Cache the results of the one-argument function `fn` (at most `capacity` of them). */
export function memoize<A, R>(fn: (arg: A) => R, capacity = 100): Memoized<A, R> {
  const cache = new LRUCache<A, R>(capacity);
  const wrapped = ((arg: A): R => {
    if (cache.has(arg)) {
      return cache.get(arg) as R;
    }
    const result = fn(arg);
    cache.set(arg, result);
    return result;
  }) as Memoized<A, R>;
  wrapped.cache = cache;
  return wrapped;
}
