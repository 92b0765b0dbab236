// Which log format svc writes: readable lines at a terminal, JSON elsewhere, LOG_FORMAT deciding when set.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chooseLogFormat } from '../../src/logging/log-format.ts';

describe('chooseLogFormat', () => {
  it('writes readable lines to a terminal and JSON to anything else', () => {
    assert.equal(chooseLogFormat(true, {}), 'pretty');
    assert.equal(chooseLogFormat(false, {}), 'json');
    assert.equal(chooseLogFormat(true, { LOG_FORMAT: '' }), 'pretty');
  });

  it('follows LOG_FORMAT whatever the output is', () => {
    assert.equal(chooseLogFormat(true, { LOG_FORMAT: 'json' }), 'json');
    assert.equal(chooseLogFormat(false, { LOG_FORMAT: 'pretty' }), 'pretty');
    assert.equal(chooseLogFormat(true, { LOG_FORMAT: ' JSON ' }), 'json');
  });

  it('refuses an unknown LOG_FORMAT, naming the values it takes', () => {
    assert.throws(() => chooseLogFormat(true, { LOG_FORMAT: 'xml' }), /LOG_FORMAT must be json or pretty .*got "xml"/);
  });
});
