/**
 * At most `limit` child processes alive at once across a file's concurrent cases (the children
 * are CPU-bound; the machine has two cores). A work item takes `count` slots at once, so one
 * that needs its children alive together (a race between two) never runs them one by one.
 * Slots are handed out in arrival order: a two-slot item is not starved by one-slot items.
 */
export function childSlots(limit = 2) {
  let live = 0;
  const queue: { count: number; go: () => void }[] = [];

  function next(): void {
    while (queue.length > 0 && live + (queue[0]?.count ?? 0) <= limit) {
      const head = queue.shift();
      if (!head) return;
      live += head.count;
      head.go();
    }
  }

  return async function withSlots<T>(count: number, work: () => Promise<T>): Promise<T> {
    if (count > limit) throw new Error(`asked for ${count} child slots, only ${limit} exist`);
    await new Promise<void>((go) => {
      queue.push({ count, go });
      next();
    });
    try {
      return await work();
    } finally {
      live -= count;
      next();
    }
  };
}
