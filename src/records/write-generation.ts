// Counts the write transactions RecordService runs, per database handle, so a cached read (a list's
// count) is dropped by this process's own changes to resource rows, and not by unrelated writes on the
// same connection (key usage counters, the outbox, webhook deliveries). Every RecordService on one
// handle shares the count (tests share a store between apps). Resource rows change only through
// RecordService; other connections' commits are seen through StoreDialect.changeMark.
const generations = new WeakMap<object, { value: number }>();

function generationOf(db: object): { value: number } {
  let generation = generations.get(db);
  if (!generation) {
    generation = { value: 0 };
    generations.set(db, generation);
  }
  return generation;
}

/** Called when a write transaction starts and again when it ends (committed or not). */
export function noteResourceWrite(db: object): void {
  generationOf(db).value++;
}

export function resourceWriteGeneration(db: object): number {
  return generationOf(db).value;
}
