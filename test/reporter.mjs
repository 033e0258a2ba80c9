// Counts finished tests (suites excluded, but for one whose own code failed) and ends the run with the line `N passed, N failed`.
export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details?.type === 'suite') {
      // A suite counts only when its own code failed: a test file that does not load (test/batch.ts
      // imports each inside a suite), or a suite's function that throws.
      if (event.type === 'test:fail' && event.data.details.error?.failureType === 'testCodeFailure') failed += 1;
      continue;
    }
    if (event.type === 'test:pass' && !event.data.skip && !event.data.todo) passed += 1;
    if (event.type === 'test:fail') failed += 1;
  }
  yield `\n${passed} passed, ${failed} failed\n`;
}
