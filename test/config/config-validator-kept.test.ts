// The config schema's compiled validator is held only while definitions are being loaded: a start or a
// reload reuses it, and a minute after its last use the service no longer holds it (1.6 MB of heap).
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { configSchemaValidator, KEEP_CONFIG_VALIDATOR_MS } from '../../src/config/validate-config.ts';

describe('the config schema validator', () => {
  it('is reused within a minute of its last use, and compiled anew after', (ctx) => {
    mock.timers.enable({ apis: ['setTimeout'] });
    ctx.after(() => mock.timers.reset());
    const first = configSchemaValidator();
    mock.timers.tick(KEEP_CONFIG_VALIDATOR_MS - 1);
    assert.equal(configSchemaValidator(), first, 'used again before its minute ran out');
    // Each use starts its minute again.
    mock.timers.tick(KEEP_CONFIG_VALIDATOR_MS - 1);
    assert.equal(configSchemaValidator(), first);
    mock.timers.tick(KEEP_CONFIG_VALIDATOR_MS);
    const second = configSchemaValidator();
    assert.notEqual(second, first, 'released a minute after its last use');
    assert.equal(second({ resources: {} }), first({ resources: {} }));
  });
});
