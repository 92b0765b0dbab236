// How many times the event loop turned while `work` ran: a step-by-step operation leaves a turn to
// other work between its steps; one that holds the loop leaves none.
export async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    if (!ticking) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    ticking = false;
  }
}
