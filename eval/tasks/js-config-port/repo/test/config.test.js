'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { loadConfig, parsePort } = require('../src/config')

test('parsePort', () => {
  assert.equal(parsePort('80'), 80)
  assert.throws(() => parsePort('0'))
  assert.throws(() => parsePort('http'))
})

test('host and log level overrides', () => {
  const config = loadConfig({ APP_HOST: '0.0.0.0', LOG_LEVEL: 'debug' })
  assert.equal(config.host, '0.0.0.0')
  assert.equal(config.logLevel, 'debug')
})

test('bad log level is rejected', () => {
  assert.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), /log level/)
})
