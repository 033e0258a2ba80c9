import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BaseResolver, createConfig, lintDocument, Source } from '@redocly/openapi-core';
import { currentOpenApi } from '../../runtime/sdk-types';

describe('the OpenAPI document under Redocly’s recommended rules', () => {
  it('has no errors (warnings are allowed)', async () => {
    const document = await currentOpenApi();
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintDocument({
      document: { source: new Source('openapi.json', JSON.stringify(document)), parsed: document },
      config: config.styleguide,
      externalRefResolver: new BaseResolver(),
    });
    const describe = (problem: (typeof problems)[number]) =>
      `${problem.ruleId}: ${problem.message} at ${problem.location.map((where) => where.pointer).join(', ')}`;
    const warnings = problems.filter((problem) => problem.severity !== 'error');
    if (warnings.length) console.log(`openapi lint warnings:\n${warnings.map(describe).join('\n')}`);
    const errors = problems.filter((problem) => problem.severity === 'error');
    assert.equal(errors.length, 0, `openapi lint errors:\n${errors.map(describe).join('\n')}`);
  });
});
