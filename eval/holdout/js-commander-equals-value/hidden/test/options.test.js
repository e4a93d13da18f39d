'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Command } = require('..');

function make() {
  const program = new Command();
  program
    .exitOverride()
    .option('-d, --debug', 'debug output')
    .option('-e, --env <name>', 'environment', 'dev')
    .option('--define <pair>', 'define KEY=VALUE');
  return program;
}

test('boolean and default options', () => {
  const program = make().parse(['-d'], { from: 'user' });
  assert.deepEqual(program.opts(), { debug: true, env: 'dev' });
});

test('value as a separate argument', () => {
  const program = make().parse(['--env', 'prod', '--define', 'A=1'], { from: 'user' });
  assert.equal(program.opts().env, 'prod');
  assert.equal(program.opts().define, 'A=1');
});

test('value after an equals sign', () => {
  const program = make().parse(['--env=prod', '--define=A=1'], { from: 'user' });
  assert.equal(program.opts().env, 'prod');
  assert.equal(program.opts().define, 'A=1');
});
