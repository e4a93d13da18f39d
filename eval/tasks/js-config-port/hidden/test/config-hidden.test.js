'use strict'
const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { loadConfig } = require('../src/config')

function tempConfig (obj) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'status-page-'))
  const file = path.join(dir, 'c.json')
  fs.writeFileSync(file, JSON.stringify(obj))
  return file
}

test('documented defaults', () => {
  assert.deepEqual(loadConfig({}), { port: 8080, host: '127.0.0.1', logLevel: 'info' })
})

test('APP_PORT overrides the port, as a number', () => {
  assert.equal(loadConfig({ APP_PORT: '9000' }).port, 9000)
})

test('the port key of the config file is used', () => {
  const file = tempConfig({ port: 5050 })
  assert.equal(loadConfig({ APP_CONFIG: file }).port, 5050)
  assert.equal(loadConfig({ APP_CONFIG: file, APP_PORT: '6000' }).port, 6000)
})

test('a file without a port gets the documented default', () => {
  const file = tempConfig({ host: '::1' })
  assert.deepEqual(loadConfig({ APP_CONFIG: file }), { port: 8080, host: '::1', logLevel: 'info' })
})

test('invalid ports are rejected', () => {
  assert.throws(() => loadConfig({ APP_PORT: '70000' }), /port/)
  assert.throws(() => loadConfig({ APP_PORT: 'eighty' }), /port/)
  assert.throws(() => loadConfig({ APP_CONFIG: tempConfig({ port: 0 }) }), /port/)
})
