'use strict'
const fs = require('node:fs')
const path = require('node:path')

const DEFAULT_FILE = path.join(__dirname, '..', 'config', 'default.json')
const LEVELS = ['debug', 'info', 'warn', 'error']

function parsePort (value) {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`invalid port: ${value}`)
  }
  return port
}

/**
 * Load the server settings: the JSON config file, then environment overrides.
 * @param {Record<string, string|undefined>} env
 * @returns {{port: number, host: string, logLevel: string}}
 */
function loadConfig (env = process.env) {
  const file = env.APP_CONFIG || DEFAULT_FILE
  const json = JSON.parse(fs.readFileSync(file, 'utf8'))

  const config = {
    port: json.listenPort ?? 3000,
    host: json.host ?? '127.0.0.1',
    logLevel: json.logLevel ?? 'info',
  }
  if (env.PORT !== undefined) config.port = env.PORT
  if (env.APP_HOST !== undefined) config.host = env.APP_HOST
  if (env.LOG_LEVEL !== undefined) config.logLevel = env.LOG_LEVEL

  config.port = parsePort(config.port)
  if (!LEVELS.includes(config.logLevel)) {
    throw new Error(`invalid log level: ${config.logLevel}`)
  }
  return config
}

module.exports = { loadConfig, parsePort, DEFAULT_FILE }
