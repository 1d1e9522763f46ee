/**
 * The rule for per-isolate caches of promises: hand other requests only a settled promise. A promise still waiting on
 * I/O (an RPC read, a D1 query) belongs to the request that started it: workerd cancels that I/O when the request ends
 * or its client goes away, and another request awaiting the promise then waits forever
 * (test/worker/platform/cache/cross-request-caches.test.ts). A settled promise is safe to share: awaiting it queues the
 * continuation in the awaiting request's own context.
 *
 * Calls `share` once `promise` has fulfilled (a rejection is never remembered) and returns `promise` for the caller
 * that started it. Until then every other caller starts its own.
 */
export function shareOnceFulfilled<T>(promise: Promise<T>, share: (fulfilled: Promise<T>) => void): Promise<T> {
  promise.then(
    () => share(promise),
    () => undefined,
  );
  return promise;
}
