// A node:test reporter that writes one JSON line per finished test or suite, for run-tests.mjs to
// count: the spec reporter's own totals count a skipped suite as one skipped test and scroll away
// above the coverage report.
export default async function* testSummaryReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, skip, todo, details } = event.data;
    yield `${JSON.stringify({
      passed: event.type === 'test:pass',
      name,
      file: file ?? null,
      suite: details?.type === 'suite',
      skip: skip === undefined || skip === false ? null : String(skip === true ? 'skipped' : skip),
      todo: todo !== undefined && todo !== false,
      // A suite fails when a child does (counted there) or on its own, e.g. a hook that threw.
      ownFailure: event.type === 'test:fail' && details?.error?.failureType !== 'subtestsFailed',
    })}\n`;
  }
}
