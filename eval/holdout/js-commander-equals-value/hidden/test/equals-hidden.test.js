'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Command } = require('..');

function make() {
  const program = new Command();
  program
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} })
    .option('--define <pair>', 'define KEY=VALUE')
    .option('--query [q]', 'optional value')
    .option('--flag', 'a boolean')
    .option('--list <item>', 'repeatable', (v, prev) => prev.concat([v]), []);
  return program;
}

const parse = (args) => make().parse(args, { from: 'user' }).opts();

test('values keep every equals sign', () => {
  assert.equal(parse(['--define=A=1']).define, 'A=1');
  assert.equal(parse(['--define=url=http://x/?a=b&c=d']).define, 'url=http://x/?a=b&c=d');
  assert.equal(parse(['--define==']).define, '=');
  assert.equal(parse(['--define=a==b']).define, 'a==b');
});

test('empty value after the equals sign', () => {
  assert.equal(parse(['--define=']).define, '');
  assert.equal(parse(['--query=']).query, '');
});

test('optional values and custom parsers', () => {
  assert.equal(parse(['--query=x=y']).query, 'x=y');
  assert.equal(parse(['--query']).query, true);
  assert.deepEqual(parse(['--list=a=1', '--list', 'b=2', '--list=c']).list, ['a=1', 'b=2', 'c']);
});

test('boolean flags still reject a value', () => {
  assert.throws(() => parse(['--flag=yes']), /unknown option/);
});

test('subcommand options', () => {
  let got;
  const program = new Command().exitOverride();
  program
    .command('run')
    .option('--env <pairs>')
    .action((opts) => {
      got = opts.env;
    });
  program.parse(['run', '--env=K=V=W'], { from: 'user' });
  assert.equal(got, 'K=V=W');
});
