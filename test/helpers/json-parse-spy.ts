// Records every text JSON.parse is given while `run` runs (to show what a component parses), then puts
// JSON.parse back.
export async function recordJsonParses(run: () => Promise<void>): Promise<string[]> {
  const parse = JSON.parse;
  const parsed: string[] = [];
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    parsed.push(text);
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    await run();
  } finally {
    JSON.parse = parse;
  }
  return parsed;
}
